/**
 * Where a pending session stands: its position in its scaling group's queue (in the group's selection policy's
 * order, counting only sessions that could start now, as a pass sees them) and an estimated start, given only
 * when it is honest and "unknown" otherwise: a reserved start time for a session that waits only for it, or, for
 * a session in line, the moment the capacity it waits for is freed by the lifetime limits of the sessions holding
 * it (./estimate), under FIFO and DRF and for a line of at most ESTIMATE_CAP sessions. Under LIFO any newer
 * submission goes first, so no session in line gets an estimate.
 */
import type { App } from '../../app';
import type { Db } from '../../db';
import { toAmounts, addAmounts, type Amounts } from '../../resources/slots';
import { COUNTING_QUOTA, OCCUPYING_AGENT } from '../states';
import { runningSince } from '../../culling/checks';
import { order, type PendingSession, type ScopeLimit, type Selection } from './schedule';
import { couldStartNow, dependenciesMet } from './ready';
import { loadLimits, PENDING_COLUMNS, placementFrom, selectionFrom, toCapacity, toPending } from './run';
import { endBy, estimateStarts, type Holder, type Lifetime } from './estimate';
import { lineOrders } from './line-orders';

export interface QueuePlace {
  /** 1 for the head; null while the session waits for its reserved time or its dependencies (not yet in line). */
  position: number | null;
  /** ISO time, or "unknown". */
  estimatedStart: string;
}

interface PendingRef {
  id: string;
  status: string;
  scaling_group_name: string;
  starts_at: Date | null;
}

/** Sessions in line (or joining it, or holding capacity) beyond which no estimate is attempted: "unknown". */
const ESTIMATE_CAP = 500;

export async function selectionOf(db: Db, sgroup: string): Promise<Selection> {
  const row = await db.selectFrom('scaling_groups').select('scheduler').where('name', '=', sgroup).executeTakeFirst();
  return selectionFrom(row?.scheduler);
}

/** The pending sessions of `sgroup` that could start now, as a pass loads them, oldest first. */
function lineRows(db: Db, sgroup: string, now: Date) {
  return db
    .selectFrom('sessions as s')
    .select([...PENDING_COLUMNS, 's.batch_timeout'])
    .where('s.status', '=', 'PENDING')
    .where('s.scaling_group_name', '=', sgroup)
    .where((eb) => couldStartNow(eb, now))
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute();
}
type LineRow = Awaited<ReturnType<typeof lineRows>>[number];

/** A scaling group's queue, head first, in its policy's order. */
async function line(db: Db, sgroup: string, now: Date, selection: Selection): Promise<{ rows: LineRow[]; ordered: PendingSession[] }> {
  const rows = await lineRows(db, sgroup, now);
  const pending = rows.map(toPending);
  const keypairs = new Map<string, ScopeLimit>();
  let clusterTotal: Amounts = {};
  if (selection === 'drf') {
    // Dominant shares need what each keypair holds and the group's total.
    const keys = [...new Set(pending.map((p) => p.accessKey))];
    if (keys.length) {
      for (const row of await db.selectFrom('sessions').select(['access_key', 'occupying_slots']).where('status', 'in', [...COUNTING_QUOTA]).where('access_key', 'in', keys).execute()) {
        const scope = keypairs.get(row.access_key) ?? { slots: {}, using: {} };
        addAmounts(scope.using, toAmounts(row.occupying_slots));
        keypairs.set(row.access_key, scope);
      }
    }
    clusterTotal = {};
    for (const a of await db.selectFrom('agents').select('available_slots').where('status', '=', 'ALIVE').where('scaling_group', '=', sgroup).execute()) {
      clusterTotal = addAmounts(clusterTotal, toAmounts(a.available_slots));
    }
  }
  return { rows, ordered: order({ pending, keypairs, selection }, clusterTotal) };
}

/** The ids of a scaling group's queue, head first, in its policy's order. */
export async function queueOrder(db: Db, sgroup: string, now = new Date()): Promise<string[]> {
  return (await line(db, sgroup, now, await selectionOf(db, sgroup))).ordered.map((p) => p.id);
}

/**
 * A scaling group's selection policy and `queue_generation` (null before migration 0021's row exists), read in one
 * statement: the generation before the line, so ./line-orders keeps nothing a change committed meanwhile outdates.
 */
async function lineState(db: Db, sgroup: string): Promise<{ selection: Selection; generation: number | null }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('scaling_groups').select('scheduler').where('name', '=', sgroup).as('scheduler'),
      eb.selectFrom('queue_generation').select('n').where('id', '=', 1).as('generation'),
    ])
    .executeTakeFirstOrThrow();
  return { selection: selectionFrom(row.scheduler ?? undefined), generation: row.generation === null ? null : Number(row.generation) };
}

/** Position and estimated start of each pending session among `sessions` (others are left out). */
export async function queuePlaces(app: App, sessions: PendingRef[]): Promise<Map<string, QueuePlace>> {
  const out = new Map<string, QueuePlace>();
  const now = new Date();
  const pending = sessions.filter((s) => s.status === 'PENDING');
  for (const sgroup of new Set(pending.map((s) => s.scaling_group_name))) {
    const { selection, generation } = await lineState(app.db, sgroup);
    const mine = pending.filter((p) => p.scaling_group_name === sgroup);
    let index: ReadonlyMap<string, number>;
    let rows: LineRow[] | null = null;
    if (selection === 'drf') {
      // Dominant shares are computed here, not by the database: the whole line is loaded.
      const loaded = await line(app.db, sgroup, now, selection);
      rows = loaded.rows;
      index = new Map(loaded.ordered.map((p, i) => [p.id, i + 1]));
    } else {
      index = await lineOrders(app).positions(sgroup, selection, generation, now);
    }
    const inLine = new Set(mine.filter((s) => index.has(s.id)).map((s) => s.id));
    // A long line is left without estimates (they would cost the whole queue per request).
    if (selection === 'fifo' && inLine.size && index.size <= ESTIMATE_CAP) rows = await lineRows(app.db, sgroup, now);
    // rows are loaded only where an estimate is given (DRF, or FIFO up to ESTIMATE_CAP): never under LIFO.
    const starts = rows && inLine.size ? await estimate(app.db, sgroup, rows, selection, inLine, now) : new Map<string, number>();
    const reserved = mine.filter((s) => !index.has(s.id) && s.starts_at && s.starts_at.getTime() > now.getTime());
    const blocked = await blockedByDependencies(app.db, reserved.map((s) => s.id));
    for (const s of mine) {
      const position = index.get(s.id) ?? null;
      const start = starts.get(s.id);
      let estimatedStart = 'unknown';
      if (position !== null && start !== undefined) estimatedStart = new Date(start).toISOString();
      // Not in line: its reserved time is an honest estimate only when nothing else (dependencies) holds it back.
      else if (position === null && reserved.includes(s) && !blocked.has(s.id)) estimatedStart = s.starts_at!.toISOString();
      out.set(s.id, { position, estimatedStart });
    }
  }
  return out;
}

/**
 * Of `ids`, those with a dependency not (yet) finished successfully: for them a reserved start time is no honest
 * estimate. One query for a page of sessions.
 */
async function blockedByDependencies(db: Db, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .selectFrom('session_dependencies as d')
    .innerJoin('sessions as p', 'p.id', 'd.depends_on')
    .select('d.session_id')
    .distinct()
    .where('d.session_id', 'in', ids)
    .where((w) => w.not(w.and([w('p.status', '=', 'TERMINATED'), w('p.result', '=', 'success')])))
    .execute();
  return new Set(rows.map((r) => r.session_id));
}

/**
 * Loads what the simulation needs (the line, the reserved sessions joining it, the agents, the limits and the
 * sessions holding capacity with their lifetime limits) and runs it: session id → estimated start.
 */
async function estimate(db: Db, sgroup: string, rows: LineRow[], selection: Selection, targets: Set<string>, now: Date): Promise<Map<string, number>> {
  // Empty: the sessions left the line (a pass scheduled them) between reading their positions and the line.
  if (!rows.length || rows.length > ESTIMATE_CAP) return new Map();
  const joiningRows = await db
    .selectFrom('sessions as s')
    .select([...PENDING_COLUMNS, 's.batch_timeout'])
    .where('s.status', '=', 'PENDING')
    .where('s.scaling_group_name', '=', sgroup)
    .where('s.starts_at', '>', now)
    .where((eb) => dependenciesMet(eb))
    .orderBy('s.starts_at')
    .limit(ESTIMATE_CAP + 1)
    .execute();
  if (joiningRows.length > ESTIMATE_CAP) return new Map();
  const holderRows = await db
    .selectFrom('sessions as s')
    .leftJoin('keypairs as k', 'k.access_key', 's.access_key')
    .leftJoin('keypair_resource_policies as p', 'p.name', 'k.resource_policy')
    .select(['s.id', 's.access_key', 's.group_id', 's.domain_name', 's.occupying_slots', 's.session_type', 's.status', 's.created_at', 's.status_history', 's.batch_timeout', 'p.max_session_lifetime'])
    .where('s.status', 'in', [...OCCUPYING_AGENT])
    .limit(ESTIMATE_CAP + 1)
    .execute();
  if (holderRows.length > ESTIMATE_CAP) return new Map();
  const agentRows = await db.selectFrom('agents').selectAll().where('status', '=', 'ALIVE').where('schedulable', '=', true).where('scaling_group', '=', sgroup).orderBy('id').execute();
  const kernels = holderRows.length && agentRows.length
    ? await db.selectFrom('kernels').select(['session_id', 'agent_id', 'occupied_slots'])
      .where('session_id', 'in', holderRows.map((h) => h.id))
      .where('agent_id', 'in', agentRows.map((a) => a.id))
      .execute()
    : [];
  const kernelsOf = new Map<string, { agentId: string; slots: Amounts }[]>();
  for (const k of kernels) kernelsOf.set(k.session_id, [...(kernelsOf.get(k.session_id) ?? []), { agentId: k.agent_id!, slots: toAmounts(k.occupied_slots) }]);
  const all = [...rows, ...joiningRows];
  const limits = await loadLimits(db, all);
  const keys = [...new Set(all.map((r) => r.access_key))];
  const lifetimes = new Map(
    keys.length
      ? (await db.selectFrom('keypairs as k').innerJoin('keypair_resource_policies as p', 'p.name', 'k.resource_policy').select(['k.access_key', 'p.max_session_lifetime']).where('k.access_key', 'in', keys).execute())
        .map((r) => [r.access_key, r.max_session_lifetime])
      : [],
  );
  const withLife = (r: LineRow) => ({ ...toPending(r), life: { type: r.session_type, createdAt: new Date(r.created_at).getTime(), maxLifetime: lifetimes.get(r.access_key) ?? 0, batchTimeout: r.batch_timeout } satisfies Lifetime });
  const holders: Holder[] = holderRows.map((h) => {
    const life: Lifetime = { type: h.session_type, createdAt: new Date(h.created_at).getTime(), maxLifetime: h.max_session_lifetime ?? 0, batchTimeout: h.batch_timeout };
    return {
      // A session already terminating frees its capacity now.
      endBy: h.status === 'TERMINATING' ? now.getTime() : endBy(life, runningSince(h.status_history)?.getTime() ?? null),
      accessKey: h.access_key, groupId: h.group_id, domainName: h.domain_name, slots: toAmounts(h.occupying_slots),
      counts: COUNTING_QUOTA.includes(h.status), countsForConcurrency: h.session_type !== 'system',
      kernels: kernelsOf.get(h.id) ?? [],
    };
  });
  const policy = await db.selectFrom('scaling_groups').select('scheduler_opts').where('name', '=', sgroup).executeTakeFirst();
  return estimateStarts({
    pending: rows.map(withLife), joining: joiningRows.map(withLife), holders, agents: agentRows.map(toCapacity), ...limits,
    selection, placement: placementFrom(policy?.scheduler_opts), now: now.getTime(), targets,
  });
}
