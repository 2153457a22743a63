/**
 * What manager administration needs from the session registry: how many sessions are active, and terminating
 * all of them (`PUT /manager/status {force_kill: true}`). Both live here so the status routes never reach into
 * session storage themselves.
 */
import { sql } from 'kysely';
import type { App } from '../app';
import { OCCUPYING_AGENT, TERMINAL } from '../sessions/states';
import { terminateSession } from '../sessions/terminate';

/** Sessions that occupy resources (every status except PENDING, TERMINATED and CANCELLED, CONTRACT §5.2). */
export async function countActiveSessions(app: App): Promise<number> {
  const row = await app.db
    .selectFrom('sessions')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('status', 'in', [...OCCUPYING_AGENT])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Terminates every live session with reason `force-terminated`; answers how many were terminated. */
export async function terminateAllSessions(app: App): Promise<number> {
  const live = await app.db.selectFrom('sessions').select('id').where('status', 'not in', [...TERMINAL]).execute();
  await Promise.all(live.map((s) => terminateSession(app, s.id, 'force-terminated')));
  return live.length;
}
