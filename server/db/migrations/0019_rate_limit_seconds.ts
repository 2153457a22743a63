/**
 * The shared rate-limit window (issue 21): per-second counts instead of one timestamp per request. With a limit
 * lifted for batch submitters, the list of timestamps grew with every request in the 900 s window (hundreds of
 * thousands at 500 requests/s), and each request rewrote it under the key's row lock: submissions slowed down as
 * they went. Counts per second keep at most 900 entries whatever the rate. Additive: `hits` stays (unused).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table rate_limit_windows add column if not exists seconds bigint[] not null default '{}';
    alter table rate_limit_windows add column if not exists counts int[] not null default '{}';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table rate_limit_windows drop column if exists counts;
    alter table rate_limit_windows drop column if exists seconds;
  `.execute(db);
}
