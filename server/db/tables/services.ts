/** Model services: endpoints, their routes and tokens. */
import type { ColumnType } from 'kysely';
import type { Json, Timestamp, Defaulted, OptionalTimestamp } from './columns';

export type RouteStatus = 'provisioning' | 'healthy' | 'unhealthy' | 'terminating' | 'failed_to_start';
export type EndpointLifecycle = 'created' | 'destroying' | 'destroyed';

/** `config.extra_mounts` of a service: folder id → how it is mounted. */
export type ExtraMounts = Record<string, { permission?: string; type?: string; mount_destination?: string | null }>;

export interface EndpointTable {
  id: string;
  name: string;
  created_user: string;
  session_owner: string;
  access_key: string;
  domain_name: string;
  group_id: string;
  scaling_group_name: string;
  image: string;
  architecture: string;
  cluster_size: Defaulted<number>;
  cluster_mode: Defaulted<string>;
  model_id: string;
  model_mount_destination: string;
  model_definition_path: Defaulted<string | null>;
  extra_mounts: Json<ExtraMounts>;
  runtime_variant: Defaulted<string>;
  desired_session_count: number;
  tag: Defaulted<string | null>;
  startup_command: Defaulted<string | null>;
  bootstrap_script: Defaulted<string | null>;
  callback_url: Defaulted<string | null>;
  environ: Json<Record<string, string>>;
  resources: Json<Record<string, unknown>>;
  resource_opts: Json<Record<string, unknown>>;
  open_to_public: Defaulted<boolean>;
  lifecycle_stage: Defaulted<EndpointLifecycle>;
  retries: Defaulted<number>;
  created_at: Timestamp;
  destroyed_at: OptionalTimestamp;
}

export interface RoutingTable {
  id: string;
  endpoint_id: string;
  session_id: Defaulted<string | null>;
  status: Defaulted<RouteStatus>;
  traffic_ratio: Defaulted<number>;
  host_port: Defaulted<number | null>;
  error: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  status_changed: Timestamp;
}

export interface EndpointTokenTable {
  id: string;
  endpoint_id: string;
  created_user: string;
  valid_until: Date | string;
  created_at: Timestamp;
}
