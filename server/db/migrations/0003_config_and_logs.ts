/** The raw configuration store (an etcd-like flat key space) and the client error log. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table config_kv (
      key text primary key,
      value text not null
    );
    create table error_logs (
      id uuid primary key,
      created_at timestamptz not null default now(),
      severity text not null,
      source text not null,
      user_id uuid references users(uuid) on delete set null,
      domain_name text,
      is_read boolean not null default false,
      is_cleared boolean not null default false,
      message text not null,
      context_lang text not null,
      context_env jsonb not null,
      request_url text,
      request_status integer,
      traceback text
    );
    create index error_logs_created on error_logs(created_at desc);
  `.execute(db);
}
