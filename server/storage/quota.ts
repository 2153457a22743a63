/**
 * Quota scopes (CONTRACT §9.6): every folder belongs to `user:<uuid>` or `project:<uuid>`. A scope's limit is its
 * own `quota_scopes.limit_bytes`, capped by the owner's policy `max_quota_scope_size` (user or project resource
 * policy; 0 there means no cap). Usage is the bytes of the files in the scope's live folders (folders in the trash
 * are not counted; purging them is an administrator's act).
 *
 * Every write that adds bytes asks first: `reserveQuota` checks used + already reserved + incoming against the
 * limit and holds the incoming bytes until the write ends, so two concurrent writes cannot both slip under it.
 * A refusal is 412 quota-exceeded, raised before anything is written.
 */
import type { App } from '../app';
import type { VFolder } from '../db/schema';
import { Problem } from '../http/problem';
import { TRASHED } from './access';
import { folderUsage } from './usage';
import { oneAtATime } from '../util/one-at-a-time';

export interface ScopeFigures {
  used_bytes: number;
  limit_bytes: number | null;
}

const reservations = new WeakMap<App, Map<string, number>>();

function reservedIn(app: App): Map<string, number> {
  let map = reservations.get(app);
  if (!map) reservations.set(app, (map = new Map()));
  return map;
}

/** Runs `fn` alone for this scope (checks and reservations of one scope never interleave). */
const serialized = oneAtATime<App>();

/** The owner's cap for a scope (bytes), or null when its policy sets none. */
async function policyCap(app: App, scopeId: string): Promise<number | null> {
  const [kind, id] = splitScope(scopeId);
  const row =
    kind === 'user'
      ? await app.db
          .selectFrom('users as u')
          .innerJoin('user_resource_policies as p', 'p.name', 'u.resource_policy')
          .select('p.max_quota_scope_size as cap')
          .where('u.uuid', '=', id)
          .executeTakeFirst()
      : await app.db
          .selectFrom('groups as g')
          .innerJoin('project_resource_policies as p', 'p.name', 'g.resource_policy')
          .select('p.max_quota_scope_size as cap')
          .where('g.id', '=', id)
          .executeTakeFirst();
  const cap = Number(row?.cap ?? 0);
  return cap > 0 ? cap : null;
}

export function splitScope(scopeId: string): ['user' | 'project', string] {
  const at = scopeId.indexOf(':');
  return [scopeId.slice(0, at) as 'user' | 'project', scopeId.slice(at + 1)];
}

/** The scope's effective limit in bytes, or null when nothing limits it. */
export async function scopeLimit(app: App, scopeId: string): Promise<number | null> {
  const [row, cap] = await Promise.all([
    app.db.selectFrom('quota_scopes').select('limit_bytes').where('id', '=', scopeId).executeTakeFirst(),
    policyCap(app, scopeId),
  ]);
  const own = row?.limit_bytes ?? null;
  if (own === null) return cap;
  return cap === null ? Number(own) : Math.min(Number(own), cap);
}

/** Files and bytes of the scope's live folders, measured from their files now. */
export async function scopeUsage(app: App, scopeId: string): Promise<{ fileCount: number; usedBytes: number }> {
  const folders = await app.db
    .selectFrom('vfolders')
    .select(['id', 'host', 'status', 'unmanaged_path'])
    .where('quota_scope_id', '=', scopeId)
    .where('status', 'not in', [...TRASHED])
    .execute();
  const total = { fileCount: 0, usedBytes: 0 };
  for (const folder of folders) {
    try {
      const usage = await folderUsage(app, folder);
      total.fileCount += usage.fileCount;
      total.usedBytes += usage.usedBytes;
    } catch (err) {
      app.log.warn({ err, folder: folder.id }, 'could not measure a folder of a quota scope');
    }
  }
  return total;
}

/** Bytes held by the scope's live folders, measured from their files now. */
export async function scopeUsed(app: App, scopeId: string): Promise<number> {
  return (await scopeUsage(app, scopeId)).usedBytes;
}

export async function scopeFigures(app: App, scopeId: string): Promise<ScopeFigures> {
  const [used, limit] = await Promise.all([scopeUsed(app, scopeId), scopeLimit(app, scopeId)]);
  return { used_bytes: used, limit_bytes: limit };
}

function exceeded(scopeId: string, used: number, incoming: number, limit: number): Problem {
  return new Problem('quota-exceeded', `This would use ${used + incoming} bytes of quota scope ${scopeId}, over its limit of ${limit} bytes.`, {
    quota_scope_id: scopeId,
    used_bytes: used,
    incoming_bytes: incoming,
    limit_bytes: limit,
  });
}

/**
 * Holds `bytes` of the folder's quota scope for a write about to happen; 412 quota-exceeded when used bytes,
 * other holds and `bytes` together would pass the limit. Call the returned function once the write has ended
 * (succeeded or not): the bytes are then on disk and measured, or gone.
 */
export async function reserveQuota(app: App, folder: Pick<VFolder, 'quota_scope_id'>, bytes: number): Promise<() => void> {
  const scopeId = folder.quota_scope_id;
  const incoming = Math.max(0, Math.ceil(bytes));
  return serialized(app, scopeId, async () => {
    const limit = await scopeLimit(app, scopeId);
    const held = reservedIn(app);
    if (limit !== null) {
      const used = (await scopeUsed(app, scopeId)) + (held.get(scopeId) ?? 0);
      if (used + incoming > limit) throw exceeded(scopeId, used, incoming, limit);
    }
    held.set(scopeId, (held.get(scopeId) ?? 0) + incoming);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (held.get(scopeId) ?? 0) - incoming;
      if (left > 0) held.set(scopeId, left);
      else held.delete(scopeId);
    };
  });
}

/** Runs a write of `bytes` under a reservation (see reserveQuota). */
export async function withQuota<T>(app: App, folder: Pick<VFolder, 'quota_scope_id'>, bytes: number, write: () => Promise<T>): Promise<T> {
  const release = await reserveQuota(app, folder, bytes);
  try {
    return await write();
  } finally {
    release();
  }
}

/** 412 unless `bytes` more fit into the folder's scope right now (no reservation is kept). */
export async function assertQuota(app: App, folder: Pick<VFolder, 'quota_scope_id'>, bytes: number): Promise<void> {
  (await reserveQuota(app, folder, bytes))();
}

/**
 * Sets a scope's own limit, clamped to the policy cap; a value ≤ 0 means "the policy cap" (no limit when the
 * policy has none). Answers the effective limit (null: unlimited).
 */
export async function setScopeLimit(app: App, scopeId: string, sizeBytes: number): Promise<number | null> {
  const cap = await policyCap(app, scopeId);
  const wanted = sizeBytes > 0 ? Math.floor(sizeBytes) : null;
  // No own limit (null) follows the policy cap, also when the policy changes later.
  const own = wanted === null ? null : cap === null ? wanted : Math.min(wanted, cap);
  const now = new Date();
  await app.db
    .insertInto('quota_scopes')
    .values({ id: scopeId, limit_bytes: own, created_at: now, modified_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ limit_bytes: own, modified_at: now }))
    .execute();
  return own ?? cap;
}
