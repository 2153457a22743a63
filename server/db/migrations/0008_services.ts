/**
 * Model services (CONTRACT §13): endpoints (a service: what to run and how many), routings (one inference
 * session each, with its health and traffic ratio) and the access tokens issued for an endpoint's URL.
 *
 * A service name is unique among services that are not destroyed. The model folder is referenced without a
 * foreign key: a destroyed service's record outlives its folder.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table endpoints (
      id uuid primary key,
      name text not null,
      created_user uuid not null references users(uuid),
      session_owner uuid not null references users(uuid),
      access_key text not null,
      domain_name text not null,
      group_id uuid not null references groups(id),
      scaling_group_name text not null,
      image text not null,
      architecture text not null,
      cluster_size integer not null default 1,
      cluster_mode text not null default 'single-node',
      model_id uuid not null,
      model_mount_destination text not null,
      model_definition_path text,
      extra_mounts jsonb not null default '{}',
      runtime_variant text not null default 'custom' check (runtime_variant in ('custom', 'vllm', 'nim', 'cmd')),
      desired_session_count integer not null check (desired_session_count >= 0),
      tag text,
      startup_command text,
      bootstrap_script text,
      callback_url text,
      environ jsonb not null default '{}',
      resources jsonb not null default '{}',
      resource_opts jsonb not null default '{}',
      open_to_public boolean not null default false,
      lifecycle_stage text not null default 'created' check (lifecycle_stage in ('created', 'destroying', 'destroyed')),
      retries integer not null default 0,
      created_at timestamptz not null default now(),
      destroyed_at timestamptz
    );
    create unique index endpoints_live_name on endpoints (name) where lifecycle_stage <> 'destroyed';
    create index endpoints_owner on endpoints (access_key);
    create table routings (
      id uuid primary key,
      endpoint_id uuid not null references endpoints(id) on delete cascade,
      session_id uuid references sessions(id) on delete set null,
      status text not null default 'provisioning' check (status in ('provisioning', 'healthy', 'unhealthy', 'terminating', 'failed_to_start')),
      traffic_ratio double precision not null default 1.0 check (traffic_ratio >= 0),
      host_port integer,
      error jsonb,
      created_at timestamptz not null default now(),
      status_changed timestamptz not null default now()
    );
    create index routings_endpoint on routings (endpoint_id);
    create table endpoint_tokens (
      id uuid primary key,
      endpoint_id uuid not null references endpoints(id) on delete cascade,
      created_user uuid not null references users(uuid),
      valid_until timestamptz not null,
      created_at timestamptz not null default now()
    );
  `.execute(db);
}
