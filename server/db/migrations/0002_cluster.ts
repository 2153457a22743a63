/** The cluster around the accounts: scaling groups, agents, resource presets, container registries. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table scaling_groups (
      name text primary key,
      description text not null default '',
      is_active boolean not null default true,
      is_public boolean not null default true,
      created_at timestamptz not null default now(),
      wsproxy_addr text,
      wsproxy_api_token text,
      driver text not null default 'static',
      driver_opts jsonb not null default '{}',
      scheduler text not null default 'fifo',
      scheduler_opts jsonb not null default '{}',
      use_host_network boolean not null default false
    );
    create table sgroups_for_domains (
      scaling_group text not null references scaling_groups(name) on delete cascade,
      domain text not null references domains(name) on delete cascade,
      primary key (scaling_group, domain)
    );
    create table sgroups_for_groups (
      scaling_group text not null references scaling_groups(name) on delete cascade,
      group_id uuid not null references groups(id) on delete cascade,
      primary key (scaling_group, group_id)
    );
    create table sgroups_for_keypairs (
      scaling_group text not null references scaling_groups(name) on delete cascade,
      access_key text not null references keypairs(access_key) on delete cascade,
      primary key (scaling_group, access_key)
    );
    create table agents (
      id text primary key,
      status text not null default 'ALIVE',
      status_changed timestamptz not null default now(),
      region text not null default 'local',
      scaling_group text not null references scaling_groups(name),
      schedulable boolean not null default true,
      available_slots jsonb not null default '{}',
      occupied_slots jsonb not null default '{}',
      addr text not null default '',
      public_host text,
      first_contact timestamptz not null default now(),
      lost_at timestamptz,
      version text not null default '',
      architecture text not null default 'x86_64',
      compute_plugins jsonb not null default '{}',
      backend text not null default 'local'
    );
    create table resource_presets (
      id uuid primary key,
      name text not null,
      resource_slots jsonb not null default '{}',
      shared_memory bigint,
      scaling_group_name text references scaling_groups(name) on delete cascade,
      unique (name, scaling_group_name)
    );
    create table container_registries (
      id uuid primary key,
      url text not null,
      registry_name text not null,
      type text not null default 'docker',
      project text,
      username text,
      password text,
      ssl_verify boolean not null default true,
      is_global boolean not null default true,
      unique (registry_name, project)
    );
  `.execute(db);
}
