/** Compute sessions: images, sessions and their kernels, dependencies, templates, background tasks. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table images (
      id uuid primary key,
      name text not null unique,
      registry text not null default 'local',
      architecture text not null default 'x86_64',
      runtime text not null,
      tag text not null default '',
      labels jsonb not null default '{}',
      resource_limits jsonb not null default '{}',
      service_ports jsonb not null default '[]',
      snapshot_dir text,
      owner_access_key text,
      size_bytes bigint not null default 0,
      is_active boolean not null default true,
      created_at timestamptz not null default now()
    );
    create table image_aliases (
      alias text primary key,
      image_id uuid not null references images(id) on delete cascade
    );
    create table sessions (
      id uuid primary key,
      name text not null,
      access_key text not null,
      user_uuid uuid not null references users(uuid),
      domain_name text not null,
      group_id uuid not null,
      scaling_group_name text not null,
      session_type text not null default 'interactive',
      cluster_mode text not null default 'single-node',
      cluster_size integer not null default 1,
      image_id uuid not null references images(id),
      image text not null,
      architecture text not null default 'x86_64',
      tag text,
      priority integer not null default 10,
      status text not null,
      status_info text,
      status_data jsonb not null default '{}',
      status_history jsonb not null default '{}',
      status_changed timestamptz not null default now(),
      result text not null default 'undefined',
      requested_slots jsonb not null default '{}',
      occupying_slots jsonb not null default '{}',
      environ jsonb not null default '{}',
      resource_opts jsonb not null default '{}',
      mounts jsonb not null default '[]',
      agent_list jsonb,
      startup_command text,
      bootstrap_script text,
      callback_url text,
      starts_at timestamptz,
      batch_timeout integer,
      num_queries integer not null default 0,
      created_at timestamptz not null default now(),
      terminated_at timestamptz
    );
    create index sessions_owner_name on sessions(access_key, name);
    create index sessions_status on sessions(status);
    -- A name is unique among an owner's sessions that are not over.
    create unique index sessions_live_name on sessions(access_key, name) where status not in ('TERMINATED', 'CANCELLED');
    create table kernels (
      id uuid primary key,
      session_id uuid not null references sessions(id) on delete cascade,
      cluster_role text not null default 'main',
      cluster_idx integer not null default 1,
      cluster_hostname text not null default 'main1',
      agent_id text,
      status text not null,
      status_info text,
      status_data jsonb not null default '{}',
      status_history jsonb not null default '{}',
      status_changed timestamptz not null default now(),
      occupied_slots jsonb not null default '{}',
      container_id text,
      service_ports jsonb not null default '[]',
      exit_code integer,
      last_stat jsonb,
      commit_status text,
      created_at timestamptz not null default now(),
      terminated_at timestamptz
    );
    create index kernels_session on kernels(session_id);
    create table session_dependencies (
      session_id uuid not null references sessions(id) on delete cascade,
      depends_on uuid not null references sessions(id) on delete cascade,
      primary key (session_id, depends_on)
    );
    create table session_templates (
      id uuid primary key,
      name text not null default '',
      type text not null,
      is_active boolean not null default true,
      domain_name text not null,
      group_id uuid,
      user_uuid uuid not null references users(uuid) on delete cascade,
      template jsonb not null,
      created_at timestamptz not null default now()
    );
    create table bgtasks (
      id uuid primary key,
      name text not null,
      access_key text,
      status text not null default 'started',
      current_progress double precision not null default 0,
      total_progress double precision not null default 0,
      message text,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    );
  `.execute(db);
}
