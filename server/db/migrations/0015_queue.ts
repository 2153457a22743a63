/**
 * The queue (README "The queue"): indexes for the scheduling pass and queue positions, so their cost follows the
 * sessions they look at, not the whole history of sessions.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    -- Pending sessions of a scaling group in queue order (position, the operators' queue view).
    create index sessions_pending_queue on sessions(scaling_group_name, priority desc, created_at) where status = 'PENDING';
    -- The pass's load: pending sessions with no reserved time (this index) or one that has come (the next).
    create index sessions_pending_unreserved on sessions(created_at) where status = 'PENDING' and starts_at is null;
    -- The next reserved start time the scheduler must wake up for.
    create index sessions_pending_starts_at on sessions(starts_at) where status = 'PENDING' and starts_at is not null;
    -- Sessions waiting for the one that just ended.
    create index session_dependencies_depends_on on session_dependencies(depends_on);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index if exists session_dependencies_depends_on;
    drop index if exists sessions_pending_starts_at;
    drop index if exists sessions_pending_unreserved;
    drop index if exists sessions_pending_queue;
  `.execute(db);
}
