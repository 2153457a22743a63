/** The cluster and its administration: scaling groups, agents, presets, registries, configuration, error logs. */
import type { Json, Timestamp, Defaulted, Slots } from './columns';

export interface ScalingGroupTable {
  name: string;
  description: Defaulted<string>;
  is_active: Defaulted<boolean>;
  is_public: Defaulted<boolean>;
  created_at: Timestamp;
  wsproxy_addr: Defaulted<string | null>;
  wsproxy_api_token: Defaulted<string | null>;
  driver: Defaulted<string>;
  driver_opts: Json<Record<string, unknown>>;
  scheduler: Defaulted<string>;
  scheduler_opts: Json<Record<string, unknown>>;
  use_host_network: Defaulted<boolean>;
}

export interface AgentTable {
  id: string;
  status: Defaulted<string>;
  status_changed: Timestamp;
  region: Defaulted<string>;
  scaling_group: string;
  schedulable: Defaulted<boolean>;
  available_slots: Json<Slots>;
  occupied_slots: Json<Slots>;
  addr: Defaulted<string>;
  public_host: Defaulted<string | null>;
  first_contact: Timestamp;
  lost_at: Defaulted<Date | null>;
  version: Defaulted<string>;
  architecture: Defaulted<string>;
  compute_plugins: Json<Record<string, unknown>>;
  backend: Defaulted<string>;
  last_heartbeat: Timestamp;
}

export interface ResourcePresetTable {
  id: string;
  name: string;
  resource_slots: Json<Slots>;
  shared_memory: Defaulted<number | null>;
  scaling_group_name: Defaulted<string | null>;
}

export interface ContainerRegistryTable {
  id: string;
  url: string;
  registry_name: string;
  type: Defaulted<string>;
  project: Defaulted<string | null>;
  username: Defaulted<string | null>;
  password: Defaulted<string | null>;
  ssl_verify: Defaulted<boolean>;
  is_global: Defaulted<boolean>;
}

export interface ConfigTable {
  key: string;
  value: string;
}

export interface ErrorLogTable {
  id: string;
  created_at: Timestamp;
  severity: string;
  source: string;
  user_id: string | null;
  domain_name: string | null;
  is_read: Defaulted<boolean>;
  is_cleared: Defaulted<boolean>;
  message: string;
  context_lang: string;
  context_env: Json<unknown>;
  request_url: string | null;
  request_status: number | null;
  traceback: string | null;
}
