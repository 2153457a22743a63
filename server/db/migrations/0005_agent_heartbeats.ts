/** Agents report a heartbeat; one silent for longer than the threshold is LOST (CONTRACT §17). */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table agents add column last_heartbeat timestamptz not null default now()`.execute(db);
}
