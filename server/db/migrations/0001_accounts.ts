/** Accounts: domains, projects (groups), users, keypairs and the three resource-policy kinds. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table keypair_resource_policies (
      name text primary key,
      created_at timestamptz not null default now(),
      default_for_unspecified text not null default 'UNLIMITED',
      total_resource_slots jsonb not null default '{}',
      max_session_lifetime integer not null default 0,
      max_concurrent_sessions integer not null default 30,
      max_pending_session_count integer,
      max_concurrent_sftp_sessions integer not null default 1,
      max_containers_per_session integer not null default 1,
      idle_timeout integer not null default 0,
      allowed_vfolder_hosts jsonb not null default '{}'
    );
    create table user_resource_policies (
      name text primary key,
      created_at timestamptz not null default now(),
      max_vfolder_count integer not null default 0,
      max_quota_scope_size bigint not null default 0,
      max_session_count_per_model_session integer not null default 10,
      max_customized_image_count integer not null default 3
    );
    create table project_resource_policies (
      name text primary key,
      created_at timestamptz not null default now(),
      max_vfolder_count integer not null default 0,
      max_quota_scope_size bigint not null default 0,
      max_network_count integer not null default 0
    );
    create table domains (
      name text primary key,
      description text not null default '',
      is_active boolean not null default true,
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now(),
      total_resource_slots jsonb not null default '{}',
      allowed_vfolder_hosts jsonb not null default '{}',
      allowed_docker_registries jsonb not null default '[]',
      integration_id text,
      dotfiles jsonb not null default '[]'
    );
    create table groups (
      id uuid primary key,
      name text not null,
      description text not null default '',
      is_active boolean not null default true,
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now(),
      domain_name text not null references domains(name) on delete cascade,
      total_resource_slots jsonb not null default '{}',
      allowed_vfolder_hosts jsonb not null default '{}',
      resource_policy text not null default 'default' references project_resource_policies(name),
      type text not null default 'general',
      integration_id text,
      dotfiles jsonb not null default '[]',
      unique (domain_name, name)
    );
    create table users (
      uuid uuid primary key,
      username text not null unique,
      email text not null unique,
      password text not null,
      need_password_change boolean not null default false,
      password_changed_at timestamptz not null default now(),
      full_name text not null default '',
      description text not null default '',
      status text not null default 'active',
      status_info text,
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now(),
      domain_name text not null references domains(name),
      role text not null default 'user',
      resource_policy text not null default 'default' references user_resource_policies(name),
      allowed_client_ip jsonb,
      main_access_key text,
      bootstrap_script text not null default '',
      dotfiles jsonb not null default '[]'
    );
    create table association_groups_users (
      group_id uuid not null references groups(id) on delete cascade,
      user_id uuid not null references users(uuid) on delete cascade,
      primary key (group_id, user_id)
    );
    create table keypairs (
      access_key text primary key,
      secret_key text not null,
      user_id uuid not null references users(uuid) on delete cascade,
      is_active boolean not null default true,
      is_admin boolean not null default false,
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now(),
      last_used timestamptz,
      rate_limit integer,
      num_queries integer not null default 0,
      resource_policy text not null default 'default' references keypair_resource_policies(name),
      ssh_public_key text,
      ssh_private_key text
    );
    create index keypairs_user on keypairs(user_id);
  `.execute(db);
}
