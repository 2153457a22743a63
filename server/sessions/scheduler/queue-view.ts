/**
 * The operators' view of the queue: each scaling group's pending sessions in the order its policy serves them,
 * with their reasons, how many each user has waiting, and what capacity the head needs against the most any
 * one agent has free. Superadmins only (it names every user's sessions).
 */
import type { App } from '../../app';
import { toAmounts, formatAmount, type Amounts } from '../../resources/slots';
import { queueOrder, selectionOf } from './queue';

export interface QueueEntry {
  position: number;
  session_id: string;
  session_name: string;
  access_key: string;
  user_email: string | null;
  priority: number;
  created_at: string;
  requested_slots: Record<string, string>;
  status_info: string;
  scheduler: unknown;
}

export interface ScalingGroupQueue {
  scaling_group: string;
  scheduler: string;
  /** Sessions that could start now, head first. */
  entries: QueueEntry[];
  /** Pending sessions still waiting for their reserved time or dependencies (not yet in line). */
  not_ready: number;
  per_user: { access_key: string; user_email: string | null; in_line: number; not_ready: number }[];
  /** What the head asks for, and the most any single agent of the group has free now, slot by slot. */
  head_needs: Record<string, string> | null;
  largest_free: Record<string, string>;
}

const format = (a: Amounts) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, formatAmount(v)]));

export async function schedulingQueues(app: App, only?: string | null, limit = 100): Promise<ScalingGroupQueue[]> {
  const groups = await app.db
    .selectFrom('sessions')
    .select('scaling_group_name')
    .distinct()
    .where('status', '=', 'PENDING')
    .$if(!!only, (q) => q.where('scaling_group_name', '=', only!))
    .orderBy('scaling_group_name')
    .execute();
  const out: ScalingGroupQueue[] = [];
  for (const { scaling_group_name: sgroup } of groups) {
    const ids = await queueOrder(app.db, sgroup);
    const pending = await app.db
      .selectFrom('sessions as s')
      .leftJoin('users as u', 'u.uuid', 's.user_uuid')
      .select(['s.id', 's.name', 's.access_key', 'u.email', 's.priority', 's.created_at', 's.requested_slots', 's.status_info', 's.status_data'])
      .where('s.status', '=', 'PENDING')
      .where('s.scaling_group_name', '=', sgroup)
      .execute();
    const byId = new Map(pending.map((p) => [p.id, p]));
    const inLine = new Set(ids);
    const users = new Map<string, { access_key: string; user_email: string | null; in_line: number; not_ready: number }>();
    for (const p of pending) {
      const u = users.get(p.access_key) ?? { access_key: p.access_key, user_email: p.email, in_line: 0, not_ready: 0 };
      if (inLine.has(p.id)) u.in_line += 1;
      else u.not_ready += 1;
      users.set(p.access_key, u);
    }
    const largest: Amounts = {};
    for (const a of await app.db.selectFrom('agents').select(['available_slots', 'occupied_slots']).where('status', '=', 'ALIVE').where('schedulable', '=', true).where('scaling_group', '=', sgroup).execute()) {
      const total = toAmounts(a.available_slots);
      const used = toAmounts(a.occupied_slots);
      for (const [k, v] of Object.entries(total)) largest[k] = Math.max(largest[k] ?? 0, v - (used[k] ?? 0));
    }
    const head = ids.length ? byId.get(ids[0]) : undefined;
    out.push({
      scaling_group: sgroup,
      scheduler: await selectionOf(app.db, sgroup),
      entries: ids.slice(0, limit).map((id, i) => {
        const p = byId.get(id)!;
        return {
          position: i + 1, session_id: p.id, session_name: p.name, access_key: p.access_key, user_email: p.email, priority: p.priority,
          created_at: new Date(p.created_at).toISOString(), requested_slots: p.requested_slots, status_info: p.status_info ?? '',
          scheduler: (p.status_data as Record<string, unknown>).scheduler ?? null,
        };
      }),
      not_ready: pending.length - ids.length,
      per_user: [...users.values()].sort((a, b) => b.in_line + b.not_ready - (a.in_line + a.not_ready)),
      head_needs: head ? format(toAmounts(head.requested_slots)) : null,
      largest_free: format(largest),
    });
  }
  return out;
}
