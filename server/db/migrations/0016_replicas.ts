/**
 * Several replicas on one PostgreSQL (issue 15): the event log behind LISTEN/NOTIFY's catch-up and the shared
 * rate-limit window. Additive only, as every migration must be so that an older replica keeps running.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table cluster_events (
      id bigserial primary key,
      origin text not null,
      kind text not null,
      body jsonb not null,
      created_at timestamptz not null default now()
    );
    create index cluster_events_created_at on cluster_events(created_at);
    create table rate_limit_windows (
      access_key text primary key,
      hits bigint[] not null
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table if exists rate_limit_windows;
    drop table if exists cluster_events;
  `.execute(db);
}
