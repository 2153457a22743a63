/** Accounts: resource policies, domains, projects (groups), users, memberships and keypairs. */
import type { Json, Timestamp, Defaulted, Slots } from './columns';

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

/** A provider account linked to a user by single sign-on (migration 0011). */
export interface OidcIdentityTable {
  issuer: string;
  subject: string;
  user_id: string;
  email: string;
  created_at: Timestamp;
  last_login_at: Timestamp;
}
