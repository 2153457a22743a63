/** DELETE /session/{name}: the destroy rules of CONTRACT §5.2, and `recursive` over dependent sessions. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { isSuperadmin } from '../auth/principal';
import type { Session } from '../db/schema';
import { Problem, notFound } from '../http/problem';
import { terminateSession } from './terminate';

const NEEDS_FORCE = ['SCHEDULED', 'PREPARING', 'TERMINATING', 'ERROR'];

export async function destroySession(app: App, caller: Principal, session: Session, options: { forced: boolean; recursive: boolean }) {
  if (options.recursive) {
    const stats = [];
    for (const dependent of await dependents(app, session.id)) stats.push((await destroyOne(app, caller, dependent, options.forced)).stats);
    stats.push((await destroyOne(app, caller, session, options.forced)).stats);
    return { stats };
  }
  return destroyOne(app, caller, session, options.forced);
}

async function destroyOne(app: App, caller: Principal, session: Session, forced: boolean) {
  if (session.status === 'TERMINATED' || session.status === 'CANCELLED') throw notFound('No such session.', 'The session has already ended.');
  if (NEEDS_FORCE.includes(session.status) && !forced) {
    throw new Problem('generic-forbidden', `A ${session.status} session can only be destroyed with forced=true.`);
  }
  if (session.status === 'PULLING' && !(forced && isSuperadmin(caller))) {
    throw new Problem('generic-forbidden', 'A PULLING session can only be destroyed by a superadmin with forced=true.');
  }
  const reason = forced ? 'force-terminated' : 'user-requested';
  return terminateSession(app, session.id, reason);
}

/** Live sessions that depend on this one, transitively, deepest first. */
async function dependents(app: App, sessionId: string, seen = new Set<string>()): Promise<Session[]> {
  const rows = await app.db
    .selectFrom('session_dependencies as d')
    .innerJoin('sessions as s', 's.id', 'd.session_id')
    .selectAll('s')
    .where('d.depends_on', '=', sessionId)
    .where('s.status', 'not in', ['TERMINATED', 'CANCELLED'])
    .execute();
  const out: Session[] = [];
  for (const row of rows) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    out.push(...(await dependents(app, row.id, seen)), row);
  }
  return out;
}
