/**
 * Row types of every table, as Kysely sees them: the tables by area in ./tables/, the Database map and the row
 * aliases here. Keep in step with migrations/.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  AgentTable,
  AppRouteTable,
  AppTokenTable,
  AuditLogTable,
  BackgroundTaskTable,
  ClusterEventTable,
  ConfigTable,
  ContainerRegistryTable,
  DomainTable,
  EndpointTable,
  EndpointTokenTable,
  ErrorLogTable,
  GroupMembershipTable,
  GroupTable,
  ImageTable,
  KernelTable,
  KeypairResourcePolicyTable,
  KeypairTable,
  OidcIdentityTable,
  ProjectResourcePolicyTable,
  RateLimitWindowTable,
  QuotaScopeTable,
  ResourcePresetTable,
  RoutingTable,
  ScalingGroupTable,
  SessionTable,
  SessionTemplateTable,
  UserResourcePolicyTable,
  UserTable,
  VFolderInvitationTable,
  VFolderPermissionTable,
  VFolderTable,
} from './tables/all';

export * from './tables/all';

export interface Database {
  keypair_resource_policies: KeypairResourcePolicyTable;
  user_resource_policies: UserResourcePolicyTable;
  project_resource_policies: ProjectResourcePolicyTable;
  domains: DomainTable;
  groups: GroupTable;
  users: UserTable;
  association_groups_users: GroupMembershipTable;
  keypairs: KeypairTable;
  oidc_identities: OidcIdentityTable;
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
  audit_log: AuditLogTable;
  cluster_events: ClusterEventTable;
  rate_limit_windows: RateLimitWindowTable;
  /** Moves with every committed change to what submissions look up (migration 0018): one row. */
  lookup_generation: { id: number; n: number };
  /** Moves with every committed change that can reorder a queue's line (migration 0021): one row. */
  queue_generation: { id: number; n: number };
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
