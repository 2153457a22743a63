/**
 * Where a pending session stands: its position in its scaling group's queue (in the group's selection policy's
 * order, counting only sessions that could start now, as a pass sees them) and an estimated start, given only
 * when it is honest (a reserved start time) and "unknown" otherwise.
 */
import { sql } from 'kysely';
import type { App } from '../../app';
import type { Db } from '../../db';
import { toAmounts, addAmounts, type Amounts } from '../../resources/slots';
import { COUNTING_QUOTA } from '../states';
import { order, type PendingSession, type ScopeLimit, type Selection } from './schedule';
import { couldStartNow } from './ready';

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

/** The pending sessions of `sgroup` that could start now, as a pass loads them. */
function readyQuery(db: Db, sgroup: string, now: Date) {
  return db
    .selectFrom('sessions as s')
    .where('s.status', '=', 'PENDING')
    .where('s.scaling_group_name', '=', sgroup)
    .where((eb) => couldStartNow(eb, now));
}

export async function selectionOf(db: Db, sgroup: string): Promise<Selection> {
  const row = await db.selectFrom('scaling_groups').select('scheduler').where('name', '=', sgroup).executeTakeFirst();
  return (['fifo', 'lifo', 'drf'].includes(row?.scheduler ?? '') ? row!.scheduler : 'fifo') as Selection;
}

/** The ids of a scaling group's queue, head first, in its policy's order. */
export async function queueOrder(db: Db, sgroup: string, now = new Date()): Promise<string[]> {
  const selection = await selectionOf(db, sgroup);
  const rows = await readyQuery(db, sgroup, now).select(['s.id', 's.access_key', 's.priority', 's.created_at']).orderBy('s.created_at').orderBy('s.id').execute();
  const pending = rows.map((r) => ({ id: r.id, accessKey: r.access_key, priority: r.priority, createdAt: new Date(r.created_at).getTime() }) as PendingSession);
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
  return order({ pending, keypairs, selection }, clusterTotal).map((p) => p.id);
}

/** Position and estimated start of each pending session among `sessions` (others are left out). */
export async function queuePlaces(app: App, sessions: PendingRef[]): Promise<Map<string, QueuePlace>> {
  const out = new Map<string, QueuePlace>();
  const now = new Date();
  const pending = sessions.filter((s) => s.status === 'PENDING');
  for (const sgroup of new Set(pending.map((s) => s.scaling_group_name))) {
    const ids = await queueOrder(app.db, sgroup, now);
    const index = new Map(ids.map((id, i) => [id, i + 1]));
    for (const s of pending.filter((p) => p.scaling_group_name === sgroup)) {
      const position = index.get(s.id) ?? null;
      const reserved = s.starts_at && s.starts_at.getTime() > now.getTime();
      out.set(s.id, { position, estimatedStart: reserved && position === null ? await reservedStart(app.db, s) : 'unknown' });
    }
  }
  return out;
}

/** A reserved start time is an honest estimate only when nothing else (dependencies) holds the session back. */
async function reservedStart(db: Db, s: PendingRef): Promise<string> {
  const blocked = await db
    .selectFrom('session_dependencies as d')
    .innerJoin('sessions as p', 'p.id', 'd.depends_on')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('d.session_id', '=', s.id)
    .where((w) => w.not(w.and([w('p.status', '=', 'TERMINATED'), w('p.result', '=', 'success')])))
    .executeTakeFirst();
  return Number(blocked?.n ?? 0) > 0 ? 'unknown' : s.starts_at!.toISOString();
}
