/**
 * The one access rule for sessions, in two forms: `seesSession` checks one session (a read by id, a write),
 * `visibleSessions` narrows a query of `sessions as s` (lists, counts, completion), so a list never shows what a
 * read refuses. The rule is auth/delegation's for whatever an access key owns: one's own sessions; one's domain's
 * for domain admins; any for superadmins. Anything else is 404, exactly like a session that does not exist.
 *
 * A name is looked up among the sessions of the owner (the caller, or whom it acts for): names are unique per
 * owner, not per domain, so a name names nothing outside them; ids and id prefixes reach whatever the rule allows.
 */
import { sql } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { actingAs, canSee, seenBy } from '../auth/delegation';
import type { Session } from '../db/schema';
import type { AnySelect } from '../db/untyped';
import { Problem, notFound } from '../http/problem';
import { LIVE } from './states';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PREFIX = /^[0-9a-f-]{4,36}$/i;

/** Whether `caller` may see this session (reads and writes by id). */
export function seesSession(caller: Principal, session: Pick<Session, 'access_key' | 'domain_name'>): boolean {
  return canSee(caller, { accessKey: session.access_key, domainName: session.domain_name });
}

/** The same rule as a condition on a query over `sessions as s` (lists and counts). */
export function visibleSessions<Q extends AnySelect>(caller: Principal, query: Q): Q {
  return seenBy(caller, query, { accessKey: 's.access_key', domainName: 's.domain_name' });
}

export interface FindOptions {
  ownerAccessKey?: string | null;
}

export async function findSession(app: App, caller: Principal, reference: string, options: FindOptions = {}): Promise<Session> {
  const owner = await actingAs(app, caller, options.ownerAccessKey);
  const visible = (s: Session) => seesSession(caller, s);

  const byName = await app.db
    .selectFrom('sessions')
    .selectAll()
    .where('access_key', '=', owner.accessKey)
    .where('name', '=', reference)
    .orderBy(sql`case when status in (${sql.join([...LIVE])}) then 0 else 1 end`)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (byName) return byName;

  if (UUID.test(reference)) {
    const byId = await app.db.selectFrom('sessions').selectAll().where('id', '=', reference.toLowerCase()).executeTakeFirst();
    if (byId && visible(byId)) return byId;
  } else if (PREFIX.test(reference)) {
    const matches = (
      await app.db
        .selectFrom('sessions')
        .selectAll()
        .where(sql<boolean>`id::text like ${reference.toLowerCase() + '%'}`)
        .orderBy('created_at', 'desc')
        .limit(20)
        .execute()
    ).filter(visible);
    if (matches.length === 1) return matches[0];
    if (matches.length > 1) {
      throw new Problem('too-many-sessions-matched', 'More than one session matches the given prefix.', {
        matches: matches.map((m) => ({ id: m.id, name: m.name, status: m.status, created_at: m.created_at.toISOString() })),
      });
    }
  }
  throw notFound('No such session.', `No session named or identified by "${reference}".`);
}

/** Sessions visible to the caller whose id or name starts with `prefix` (CLI completion). */
export async function matchSessions(app: App, caller: Principal, prefix: string): Promise<Session[]> {
  const like = prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
  return visibleSessions(caller, app.db.selectFrom('sessions as s'))
    .selectAll('s')
    .where((eb) => eb.or([eb('s.name', 'like', like), eb(sql`s.id::text`, 'like', like.toLowerCase())]))
    .orderBy('s.created_at', 'desc')
    .limit(50)
    .execute();
}
