/** Row types of every table, as Kysely sees them. Keep in step with migrations/. */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** A jsonb column: read as T, written as its JSON text (see json() in ./index). */
export type Json<T> = ColumnType<T, string, string>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export type Slots = Record<string, string>;

export interface KeypairResourcePolicyTable {
  name: string;
  created_at: Timestamp;
  default_for_unspecified: Defaulted<string>;
  total_resource_slots: Json<Slots>;
  max_session_lifetime: Defaulted<number>;
  max_concurrent_sessions: Defaulted<number>;
  max_pending_session_count: Defaulted<number | null>;
  max_concurrent_sftp_sessions: Defaulted<number>;
  max_containers_per_session: Defaulted<number>;
  idle_timeout: Defaulted<number>;
  allowed_vfolder_hosts: Json<Record<string, string[]>>;
}

export interface UserResourcePolicyTable {
  name: string;
  created_at: Timestamp;
  max_vfolder_count: Defaulted<number>;
  max_quota_scope_size: Defaulted<number>;
  max_session_count_per_model_session: Defaulted<number>;
  max_customized_image_count: Defaulted<number>;
}

export interface ProjectResourcePolicyTable {
  name: string;
  created_at: Timestamp;
  max_vfolder_count: Defaulted<number>;
  max_quota_scope_size: Defaulted<number>;
  max_network_count: Defaulted<number>;
}

export interface Dotfile {
  path: string;
  permission: string;
  data: string;
}

export interface DomainTable {
  name: string;
  description: Defaulted<string>;
  is_active: Defaulted<boolean>;
  created_at: Timestamp;
  modified_at: Timestamp;
  total_resource_slots: Json<Slots>;
  allowed_vfolder_hosts: Json<Record<string, string[]>>;
  allowed_docker_registries: Json<string[]>;
  integration_id: Defaulted<string | null>;
  dotfiles: Json<Dotfile[]>;
}

export interface GroupTable {
  id: string;
  name: string;
  description: Defaulted<string>;
  is_active: Defaulted<boolean>;
  created_at: Timestamp;
  modified_at: Timestamp;
  domain_name: string;
  total_resource_slots: Json<Slots>;
  allowed_vfolder_hosts: Json<Record<string, string[]>>;
  resource_policy: Defaulted<string>;
  type: Defaulted<string>;
  integration_id: Defaulted<string | null>;
  dotfiles: Json<Dotfile[]>;
}

export interface UserTable {
  uuid: string;
  username: string;
  email: string;
  password: string;
  need_password_change: Defaulted<boolean>;
  password_changed_at: Timestamp;
  full_name: Defaulted<string>;
  description: Defaulted<string>;
  status: Defaulted<string>;
  status_info: Defaulted<string | null>;
  created_at: Timestamp;
  modified_at: Timestamp;
  domain_name: string;
  role: Defaulted<string>;
  resource_policy: Defaulted<string>;
  allowed_client_ip: Json<string[] | null>;
  main_access_key: Defaulted<string | null>;
  bootstrap_script: Defaulted<string>;
  dotfiles: Json<Dotfile[]>;
}

export interface GroupMembershipTable {
  group_id: string;
  user_id: string;
}

export interface KeypairTable {
  access_key: string;
  secret_key: string;
  user_id: string;
  is_active: Defaulted<boolean>;
  is_admin: Defaulted<boolean>;
  created_at: Timestamp;
  modified_at: Timestamp;
  last_used: Defaulted<Date | null>;
  rate_limit: Defaulted<number | null>;
  num_queries: Defaulted<number>;
  resource_policy: Defaulted<string>;
  ssh_public_key: Defaulted<string | null>;
  ssh_private_key: Defaulted<string | null>;
}

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

export interface ServicePort {
  name: string;
  protocol: 'http' | 'tcp' | 'preopen' | 'internal' | 'pty';
  ports: number[];
  /** How the runner starts the app; {port} and {base_url} are filled in. */
  argv?: string[];
  url_template?: string | null;
  allowed_arguments?: string[] | null;
  allowed_envs?: string[] | null;
}

export interface ImageTable {
  id: string;
  name: string;
  registry: Defaulted<string>;
  architecture: Defaulted<string>;
  runtime: string;
  tag: Defaulted<string>;
  labels: Json<Record<string, string>>;
  resource_limits: Json<Record<string, { min: string; max?: string | null }>>;
  service_ports: Json<ServicePort[]>;
  snapshot_dir: Defaulted<string | null>;
  owner_access_key: Defaulted<string | null>;
  size_bytes: Defaulted<number>;
  is_active: Defaulted<boolean>;
  created_at: Timestamp;
}

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
  starts_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  batch_timeout: Defaulted<number | null>;
  num_queries: Defaulted<number>;
  created_at: Timestamp;
  terminated_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
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
  service_ports: Json<KernelServicePort[]>;
  exit_code: Defaulted<number | null>;
  last_stat: Json<Record<string, unknown> | null>;
  commit_status: Defaulted<string | null>;
  created_at: Timestamp;
  terminated_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
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
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface AppRouteTable {
  id: string;
  session_id: string;
  kernel_id: string;
  app: string;
  protocol: Defaulted<string>;
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
  destroyed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
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

export type FolderPermission = 'ro' | 'rw' | 'wd';

export interface VFolderTable {
  id: string;
  name: string;
  /** `<proxy>:<volume>`, e.g. `local:volume1`. */
  host: string;
  /** `user:<uuid>` or `project:<uuid>`. */
  quota_scope_id: string;
  usage_mode: Defaulted<string>;
  /** For group folders, what project members get; for user folders, the owner's default mount permission. */
  permission: Defaulted<FolderPermission>;
  ownership_type: 'user' | 'group';
  user_uuid: string | null;
  group_id: string | null;
  /** The creator's email. */
  creator: string;
  /** An admin-given host directory used as the folder root instead of a managed directory. */
  unmanaged_path: Defaulted<string | null>;
  cloneable: Defaulted<boolean>;
  status: Defaulted<string>;
  status_changed: Timestamp;
  status_history: Json<Record<string, string>>;
  max_files: Defaulted<number>;
  max_size: Defaulted<number>;
  /** Last measured file count and bytes (refreshed whenever the folder's usage is computed). */
  num_files: Defaulted<number>;
  cur_size: Defaulted<number>;
  created_at: Timestamp;
  last_used: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface VFolderPermissionTable {
  vfolder_id: string;
  user_uuid: string;
  permission: FolderPermission;
  created_at: Timestamp;
}

export interface VFolderInvitationTable {
  id: string;
  vfolder_id: string;
  /** User uuids; the API shows their emails. */
  inviter: string;
  invitee: string;
  permission: FolderPermission;
  state: Defaulted<'pending' | 'canceled' | 'accepted' | 'rejected'>;
  created_at: Timestamp;
  modified_at: Timestamp;
}

export interface QuotaScopeTable {
  /** `user:<uuid>` or `project:<uuid>`. */
  id: string;
  /** null: no limit of its own (the policy's maximum, if any, applies). */
  limit_bytes: Defaulted<number | null>;
  created_at: Timestamp;
  modified_at: Timestamp;
}

export interface Database {
  keypair_resource_policies: KeypairResourcePolicyTable;
  user_resource_policies: UserResourcePolicyTable;
  project_resource_policies: ProjectResourcePolicyTable;
  domains: DomainTable;
  groups: GroupTable;
  users: UserTable;
  association_groups_users: GroupMembershipTable;
  keypairs: KeypairTable;
  scaling_groups: ScalingGroupTable;
  sgroups_for_domains: { scaling_group: string; domain: string };
  sgroups_for_groups: { scaling_group: string; group_id: string };
  sgroups_for_keypairs: { scaling_group: string; access_key: string };
  agents: AgentTable;
  resource_presets: ResourcePresetTable;
  container_registries: ContainerRegistryTable;
  config_kv: ConfigTable;
  error_logs: ErrorLogTable;
  images: ImageTable;
  image_aliases: { alias: string; image_id: string };
  sessions: SessionTable;
  kernels: KernelTable;
  session_dependencies: { session_id: string; depends_on: string };
  session_templates: SessionTemplateTable;
  bgtasks: BackgroundTaskTable;
  app_routes: AppRouteTable;
  app_tokens: AppTokenTable;
  endpoints: EndpointTable;
  routings: RoutingTable;
  endpoint_tokens: EndpointTokenTable;
  vfolders: VFolderTable;
  vfolder_permissions: VFolderPermissionTable;
  vfolder_invitations: VFolderInvitationTable;
  quota_scopes: QuotaScopeTable;
}

export type User = Selectable<UserTable>;
export type Keypair = Selectable<KeypairTable>;
export type Domain = Selectable<DomainTable>;
export type Group = Selectable<GroupTable>;
export type Agent = Selectable<AgentTable>;
export type ResourcePreset = Selectable<ResourcePresetTable>;
export type ScalingGroup = Selectable<ScalingGroupTable>;
export type KeypairResourcePolicy = Selectable<KeypairResourcePolicyTable>;
export type Image = Selectable<ImageTable>;
export type Session = Selectable<SessionTable>;
export type Kernel = Selectable<KernelTable>;
export type VFolder = Selectable<VFolderTable>;
export type AppRoute = Selectable<AppRouteTable>;
export type Endpoint = Selectable<EndpointTable>;
export type Routing = Selectable<RoutingTable>;
export type NewUser = Insertable<UserTable>;
export type UserUpdate = Updateable<UserTable>;
