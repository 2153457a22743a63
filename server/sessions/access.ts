/**
 * The one ownership check for sessions: a caller reaches a session by name (among the owner's sessions), by id
 * or by id prefix, and only if it may see it (its own; its domain's for domain admins; any for superadmins).
 * Anything else is 404, exactly like a session that does not exist.
 */
import { sql } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { actingAs, canSee } from '../auth/delegation';
import type { Session } from '../db/schema';
import { Problem, notFound } from '../http/problem';
import { LIVE } from './states';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PREFIX = /^[0-9a-f-]{4,36}$/i;

export interface FindOptions {
  ownerAccessKey?: string | null;
}

export async function findSession(app: App, caller: Principal, reference: string, options: FindOptions = {}): Promise<Session> {
  const owner = await actingAs(app, caller, options.ownerAccessKey);
  const visible = (s: Session) => canSee(caller, { accessKey: s.access_key, domainName: s.domain_name });

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
  const rows = await app.db
    .selectFrom('sessions')
    .selectAll()
    .where((eb) => eb.or([eb('name', 'like', like), eb(sql`id::text`, 'like', like.toLowerCase())]))
    .orderBy('created_at', 'desc')
    .limit(50)
    .execute();
  return rows.filter((s) => canSee(caller, { accessKey: s.access_key, domainName: s.domain_name }));
}
