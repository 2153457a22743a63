/** Sessions, their kernels, templates, background tasks and in-session app routes. */
import type { Json, Timestamp, Defaulted, Slots, OptionalTimestamp, OptionalJson } from './columns';
import type { ServicePort } from './images';

export interface SessionMount {
  id: string;
  name: string;
  kernelPath: string;
  permission: 'ro' | 'rw' | 'wd';
}

export interface SessionTable {
  id: string;
  name: string;
  access_key: string;
  user_uuid: string;
  domain_name: string;
  group_id: string;
  scaling_group_name: string;
  session_type: Defaulted<string>;
  cluster_mode: Defaulted<string>;
  cluster_size: Defaulted<number>;
  image_id: string;
  image: string;
  architecture: Defaulted<string>;
  tag: Defaulted<string | null>;
  priority: Defaulted<number>;
  status: string;
  status_info: Defaulted<string | null>;
  status_data: Json<Record<string, unknown>>;
  status_history: Json<Record<string, string>>;
  status_changed: Timestamp;
  result: Defaulted<string>;
  requested_slots: Json<Slots>;
  occupying_slots: Json<Slots>;
  environ: Json<Record<string, string>>;
  resource_opts: Json<Record<string, unknown>>;
  mounts: Json<SessionMount[]>;
  agent_list: Json<string[] | null>;
  startup_command: Defaulted<string | null>;
  bootstrap_script: Defaulted<string | null>;
  callback_url: Defaulted<string | null>;
  starts_at: OptionalTimestamp;
  /** Set by the one manager process that launches the session (sessions/launch.ts). */
  launch_claimed_at: OptionalTimestamp;
  batch_timeout: Defaulted<number | null>;
  num_queries: Defaulted<number>;
  created_at: Timestamp;
  terminated_at: OptionalTimestamp;
  /** The last use seen by the idle culler (server/culling/); null until the first. */
  last_activity: OptionalTimestamp;
}

export interface KernelServicePort extends ServicePort {
  /** Host ports the app listens on, parallel to `ports`. */
  host_ports: number[];
}

export interface KernelTable {
  id: string;
  session_id: string;
  cluster_role: Defaulted<string>;
  cluster_idx: Defaulted<number>;
  cluster_hostname: Defaulted<string>;
  agent_id: Defaulted<string | null>;
  status: string;
  status_info: Defaulted<string | null>;
  status_data: Json<Record<string, unknown>>;
  status_history: Json<Record<string, string>>;
  status_changed: Timestamp;
  occupied_slots: Json<Slots>;
  container_id: Defaulted<string | null>;
  /** How a manager reaches the kernel's runner (agents/channel/endpoint), secret included; null until started. */
  channel: OptionalJson<Record<string, unknown>>;
  service_ports: Json<KernelServicePort[]>;
  exit_code: Defaulted<number | null>;
  last_stat: Json<Record<string, unknown> | null>;
  commit_status: Defaulted<string | null>;
  created_at: Timestamp;
  terminated_at: OptionalTimestamp;
}

export interface SessionTemplateTable {
  id: string;
  name: Defaulted<string>;
  type: string;
  is_active: Defaulted<boolean>;
  domain_name: string;
  group_id: Defaulted<string | null>;
  user_uuid: string;
  template: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface BackgroundTaskTable {
  id: string;
  name: string;
  access_key: Defaulted<string | null>;
  status: Defaulted<string>;
  current_progress: Defaulted<number>;
  total_progress: Defaulted<number>;
  message: Defaulted<string | null>;
  created_at: Timestamp;
  finished_at: OptionalTimestamp;
}

export interface AppRouteTable {
  id: string;
  session_id: string;
  kernel_id: string;
  app: string;
  protocol: Defaulted<string>;
  /** Where the app listens: the kernel's node as the app proxy reaches it. */
  host: Defaulted<string>;
  host_port: number;
  user_uuid: string;
  created_at: Timestamp;
}

export interface AppTokenTable {
  token_hash: string;
  route_id: string;
  session_id: string;
  user_uuid: string;
  expires_at: Date | string;
  used_at: Defaulted<Date | null>;
}
