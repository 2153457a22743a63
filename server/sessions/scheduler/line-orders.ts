/**
 * The order of a scaling group's line under FIFO or LIFO (priority first, then age, then id, as ./schedule orders
 * it), kept while `queue_generation` stands still: the database moves it in the transaction of every change that
 * can reorder a line or change who is in it (migration 0021), so one read tells whether a kept order is still the
 * line's, whichever replica made the change. A kept order also expires when the earliest reserved start time after
 * it was read comes: that session joins the line then, with no write to tell. DRF orders by what each keypair
 * holds, which moves with every session's resources, so ./queue computes it afresh.
 *
 * The running tab of the dashboard asks the positions of a page of pending sessions every few seconds; ordering a
 * line of 1,000 took PGlite ~5 ms per call, and a line rarely moves between two of them.
 */
import { sql } from 'kysely';
import type { App } from '../../app';
import type { Db } from '../../db';
import { couldStartNow } from './ready';
import type { Selection } from './schedule';

/** The policies whose order is kept: the line's own order, not what keypairs hold. */
export type LineSelection = Exclude<Selection, 'drf'>;

/** Session id → position (1 for the head); its size is how many are in line. Shared: callers must not change it. */
export type LinePositions = ReadonlyMap<string, number>;

interface KeptLine {
  generation: number;
  selection: LineSelection;
  /** Epoch ms when a reserved session joins the line (Infinity: none is waiting for its time). */
  expires: number;
  positions: LinePositions;
}

/** Scaling groups whose line is kept; past it every kept line is dropped (a bound, not a working size). */
const MAX_LINES = 1_000;

export class LineOrders {
  private kept = new Map<string, KeptLine>();

  constructor(private readonly app: Pick<App, 'db'>) {}

  /** `generation` is `queue_generation.n` read before this call (see ./queue's lineState), null if unknown. */
  async positions(sgroup: string, selection: LineSelection, generation: number | null, now: Date): Promise<LinePositions> {
    const hit = this.kept.get(sgroup);
    if (hit && generation !== null && hit.generation === generation && hit.selection === selection && now.getTime() < hit.expires) {
      return hit.positions;
    }
    const line = await loadLine(this.app.db, sgroup, selection, now);
    if (generation === null) return line.positions;
    if (this.kept.size >= MAX_LINES) this.kept.clear();
    // Kept under the generation read before the load: a change committed meanwhile moved it, so the next call loads again.
    this.kept.set(sgroup, { generation, selection, ...line });
    return line.positions;
  }
}

/** The line in order, as one string of ids (1,000 rows would cost PGlite more to hand over than to order). */
async function loadLine(db: Db, sgroup: string, selection: LineSelection, now: Date): Promise<{ positions: LinePositions; expires: number }> {
  // ./schedule compares ages in milliseconds and keeps the load order (oldest first) for ties.
  const age = selection === 'lifo' ? sql`date_trunc('milliseconds', s.created_at) desc, s.created_at` : sql`s.created_at`;
  const row = await db
    .selectFrom('sessions as s')
    .select([
      sql<string>`coalesce(string_agg(s.id::text, ',' order by s.priority desc, ${age}, s.id), '')`.as('ids'),
      (eb) =>
        eb
          .selectFrom('sessions as r')
          .select((r) => r.fn.min('r.starts_at').as('next'))
          .where('r.status', '=', 'PENDING')
          .where('r.scaling_group_name', '=', sgroup)
          .where('r.starts_at', '>', now)
          .as('next_start'),
    ])
    .where('s.status', '=', 'PENDING')
    .where('s.scaling_group_name', '=', sgroup)
    .where((w) => couldStartNow(w, now))
    .executeTakeFirstOrThrow();
  const positions = new Map<string, number>();
  if (row.ids) row.ids.split(',').forEach((id, i) => positions.set(id, i + 1));
  const next = row.next_start as Date | null;
  return { positions, expires: next ? new Date(next).getTime() : Infinity };
}

const byApp = new WeakMap<object, LineOrders>();

export function lineOrders(app: Pick<App, 'db'>): LineOrders {
  let orders = byApp.get(app);
  if (!orders) byApp.set(app, (orders = new LineOrders(app)));
  return orders;
}
