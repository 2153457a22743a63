/**
 * Lists at scale (issue 18; plans in docs/query-plans.md): the session list's page is one owner's sessions newest
 * first, so an index in that order lets the database read the 25 rows of a page (and join their users and
 * projects) instead of every session of the owner, sorted; (access_key, status) serves its count; (created_at, id)
 * does the same for the lists of admins, which span owners. Additive only, as every migration must be.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index if not exists sessions_owner_created on sessions(access_key, created_at desc, id);
    create index if not exists sessions_owner_status on sessions(access_key, status);
    create index if not exists sessions_created on sessions(created_at desc, id);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index if exists sessions_created;
    drop index if exists sessions_owner_status;
    drop index if exists sessions_owner_created;
  `.execute(db);
}
