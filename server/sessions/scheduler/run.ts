/**
 * The scheduler driver. A pass locks the pending sessions and the schedulable agents, loads limits and usage,
 * asks the pure scheduler (./schedule) for assignments and applies them in the same transaction, so concurrent
 * creates (or manager replicas) never give one slot away twice. Passes are triggered on enqueue and termination;
 * triggers are coalesced: a burst of them during a pass is one more pass, started no sooner than the last pass
 * took (so submissions keep at least half of the database), and a pass is incremental: it loads only sessions
 * that could start now. A session whose starts_at is ahead is not loaded before that time (a timer wakes the
 * scheduler for the earliest one); one whose dependencies have not all finished is loaded once the last ends
 * (its end triggers a pass). Every session a pass leaves pending gets its reasons in status_data.scheduler
 * (Backend.AI's shape) and a short status_info, written in one statement.
 */
import { sql, type RawBuilder } from 'kysely';
import type { App, Submitted } from '../../app';
import type { Db } from '../../db';
import type { Agent, Session } from '../../db/schema';
import { json } from '../../db';
import { addAmounts, formatAmount, toAmounts, type Amounts } from '../../resources/slots';
import { COUNTING_QUOTA } from '../states';
import { schedulerOf } from '../../manager/scheduler';
import { publishPendingReason, publishSessionEvent } from '../transition';
import { schedule, type AgentCapacity, type PendingSession, type Placement, type ScopeLimit, type Selection, type Verdict } from './schedule';
import { ALL_PASSED, statusInfo, type SchedulerStatus } from './reasons';
import { couldStartNow } from './ready';


const PERIODIC_MS = 10_000;
/**
 * How long a pass asked for by submissions alone waits for more of them: a burst of submissions is one pass
 * (not one per submission), for at most this much added latency before a new session is looked at. A submission
 * within BURST_MS of the last one or of the end of the last pass for submissions is part of a burst (a long pass
 * holds the next submissions back, so they arrive as it ends); a lone one is looked at at once.
 */
const GATHER_MS = 2;
const BURST_MS = 50;
/** setTimeout's limit; a starts_at further ahead is re-armed by the periodic pass. */
const MAX_WAKE_MS = 2 ** 31 - 1;

function formatSlots(amounts: Amounts): Record<string, string> {
  return Object.fromEntries(Object.entries(amounts).map(([k, v]) => [k, formatAmount(v)]));
}

function subtract(from: Amounts, amounts: Amounts): Amounts {
  const out = { ...from };
  for (const [k, v] of Object.entries(amounts)) out[k] = Math.max(0, (out[k] ?? 0) - v);
  return out;
}

export class SessionScheduler {
  private running = false;
  private again = false;
  /** What asked for the next pass, as GET /manager/scheduler/status reports it. */
  private reason = 'event';
  /**
   * Sessions submitted since the last pass, when nothing else asked for one. Only a freed capacity (a session
   * ending, an agent joining or changing, a limit changing, a reserved time or the periodic timer) can let a session
   * that a pass left pending start: free slots and headroom under limits only shrink otherwise. So until one of
   * those comes, a pass needs to look only at these (a delta pass), not at the whole queue again.
   */
  private fresh = new Set<string>();
  /** Whether the next pass must look at every pending session (anything but a submission asked for it). */
  private full = true;
  private cursor = 0;
  private lastPassMs = 0;
  /** When the last submission came or the last pass for submissions ended (see BURST_MS). */
  private lastSubmissionActivity = -Infinity;
  private wake: NodeJS.Timeout | null = null;
  private wakeAt = Infinity;
  private readonly timer: NodeJS.Timeout;

  /** `onScheduled`: launches the sessions a pass scheduled, whose launches that pass claimed (../launch). */
  constructor(private readonly app: App, private readonly onScheduled: (sessions: Session[]) => void) {
    this.timer = setInterval(() => this.trigger('timer'), PERIODIC_MS);
    this.timer.unref();
  }

  /**
   * `reason`: `event` (enqueue, termination, an agent joining) or `timer`. `submitted`: the session whose
   * submission asks for the pass (nothing freed capacity); without it, the next pass is a full one.
   */
  trigger(reason = 'event', submitted?: Submitted): void {
    // A session reserved for later cannot start in a pass before its time (passes load only sessions that could
    // start now): its submission needs no pass, only the wake-up timer to be early enough for it.
    if (submitted?.startsAt && submitted.startsAt.getTime() > Date.now()) return this.wakeBy(submitted.startsAt.getTime());
    this.reason = reason;
    let inBurst = false;
    if (submitted) {
      this.fresh.add(submitted.id);
      inBurst = performance.now() - this.lastSubmissionActivity < BURST_MS;
      this.lastSubmissionActivity = performance.now();
    } else this.full = true;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    if (submitted && inBurst) setTimeout(() => void this.loop(), GATHER_MS);
    else void this.loop();
  }

  stop(): void {
    clearInterval(this.timer);
    if (this.wake) clearTimeout(this.wake);
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        const only = this.full ? undefined : [...this.fresh];
        this.full = false;
        this.fresh.clear();
        const started = performance.now();
        let scheduled: Session[];
        try {
          scheduled = await schedulerOf(this.app).observe('schedule', this.reason, () => this.pass(only));
        } catch (err) {
          this.full = true; // what it was to look at is not known to be done: look at everything next time
          throw err;
        }
        this.lastPassMs = performance.now() - started;
        if (only) this.lastSubmissionActivity = performance.now();
        if (scheduled.length) this.onScheduled(scheduled);
        // Coalesce the triggers that arrive meanwhile: wait twice as long as the pass took before the next one.
        if (this.again && this.lastPassMs > 5) await new Promise((resolve) => setTimeout(resolve, 2 * this.lastPassMs));
      } while (this.again);
    } catch (err) {
      this.app.log.error({ err }, 'scheduling pass failed');
    } finally {
      this.running = false;
    }
  }

  /**
   * One pass; returns the sessions it scheduled, their launches claimed: the caller launches them. `only`: a delta
   * pass over these sessions (submitted since the last pass, nothing freed since); without it, every pending
   * session that could start now.
   */
  async pass(only?: string[]): Promise<Session[]> {
    if (only && !only.length) return [];
    const { scheduled, reasons } = await this.app.db.transaction().execute((trx) => this.passIn(trx, only));
    // A delta pass looks at submissions due now (reserved ones never trigger one), so nothing to wake for is new.
    if (!only) await this.armWake();
    for (const { session, info } of reasons) publishPendingReason(this.app, session, info);
    for (const session of scheduled) {
      this.app.events.publishStatus(session.id, 'SCHEDULED');
      publishSessionEvent(this.app, session, 'session_scheduled', '', null);
    }
    return scheduled;
  }

  /** Wakes the scheduler when the earliest reserved start time comes. */
  private async armWake(): Promise<void> {
    const next = await this.app.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.min('starts_at').as('at'))
      .where('status', '=', 'PENDING')
      .where('starts_at', '>', new Date())
      .executeTakeFirst();
    this.setWake(next?.at ? new Date(next.at as unknown as string).getTime() : Infinity);
  }

  /** Makes the wake-up timer fire by `at` (a reserved session was submitted). */
  private wakeBy(at: number): void {
    if (at < this.wakeAt) this.setWake(at);
  }

  private setWake(at: number): void {
    if (at === this.wakeAt) return;
    if (this.wake) clearTimeout(this.wake);
    this.wake = null;
    this.wakeAt = at;
    if (at === Infinity) return;
    this.wake = setTimeout(() => {
      this.wakeAt = Infinity;
      this.trigger('timer');
    }, Math.min(MAX_WAKE_MS, Math.max(0, at - Date.now()) + 5));
    this.wake.unref();
  }

  private async passIn(trx: Db, only?: string[]) {
    const now = new Date();
    // Only sessions that could start now: reserved times reached, every dependency finished successfully.
    const pendingRows = await trx
      .selectFrom('sessions as s')
      .select([...PENDING_COLUMNS, 's.name', sql<SchedulerStatus | null>`s.status_data->'scheduler'`.as('last_verdict')])
      .where('s.status', '=', 'PENDING')
      .$if(!!only, (q) => q.where('s.id', 'in', only!))
      .where((eb) => couldStartNow(eb, now))
      .orderBy('s.created_at')
      .forUpdate('s')
      .skipLocked()
      .execute();
    if (!pendingRows.length) return { scheduled: [], reasons: [] };
    const agentRows = await trx
      .selectFrom('agents')
      .selectAll()
      .where('status', '=', 'ALIVE')
      .where('schedulable', '=', true)
      .orderBy('id')
      .forUpdate()
      .execute();
    const { keypairs, groups, domains } = await loadLimits(trx, pendingRows);
    const groupsRows = await trx.selectFrom('scaling_groups').select(['name', 'scheduler', 'scheduler_opts']).execute();
    const policy = new Map(groupsRows.map((g) => [g.name, g]));

    const agents = agentRows.map(toCapacity);
    const pending = pendingRows.map(toPending);

    const assigned = new Map<string, string[]>();
    const verdicts = new Map<string, Verdict>();
    for (const sgroup of new Set(pending.map((p) => p.scalingGroup))) {
      const opts = policy.get(sgroup);
      const result = schedule({
        pending: pending.filter((p) => p.scalingGroup === sgroup),
        agents: agents.filter((a) => a.scalingGroup === sgroup),
        keypairs,
        groups,
        domains,
        selection: selectionFrom(opts?.scheduler),
        placement: placementFrom(opts?.scheduler_opts),
        now: Date.now(),
        cursor: this.cursor,
      });
      this.cursor = result.cursor;
      for (const [id, list] of result.assigned) assigned.set(id, list);
      for (const [id, verdict] of result.verdicts) verdicts.set(id, verdict);
    }
    const previous = new Map(pendingRows.map((r) => [r.id, r.last_verdict]));
    await recordVerdicts(trx, new Map([...verdicts].filter(([id, v]) => changed(previous.get(id) ?? null, v, now))), now);
    // Only a different reason is announced (not the periodic refresh of retries/last_try): no event storm.
    const reasons = pendingRows
      .filter((r) => verdicts.has(r.id) && reasonChanged(r.last_verdict, verdicts.get(r.id)!))
      .map((session) => ({ session, info: statusInfo(verdicts.get(session.id)!) }));
    if (!assigned.size) return { scheduled: [], reasons };

    const occupiedDelta = new Map<string, Amounts>();
    const done = [];
    for (const session of pending.filter((p) => assigned.has(p.id))) {
      const agentIds = assigned.get(session.id)!;
      // The i-th kernel (by cluster_idx) goes to agentIds[i]: one statement for all of them.
      await sql`
        update kernels as k
        set agent_id = placed.agent_id,
            status = 'SCHEDULED',
            status_changed = ${now},
            occupied_slots = ${json(formatSlots(session.perKernel))}::jsonb,
            status_history = k.status_history || jsonb_build_object('SCHEDULED', ${now.toISOString()}::text)
        from (select id, row_number() over (order by cluster_idx) as n from kernels where session_id = ${session.id}) as ordered
        join jsonb_array_elements_text(${JSON.stringify(agentIds)}::jsonb) with ordinality as placed(agent_id, n) on placed.n = ordered.n
        where k.id = ordered.id
      `.execute(trx);
      for (const agentId of agentIds) occupiedDelta.set(agentId, addAmounts(occupiedDelta.get(agentId) ?? {}, session.perKernel));
      const row = await trx
        .updateTable('sessions')
        .set({
          status: 'SCHEDULED',
          status_changed: now,
          // The pass's caller launches what it scheduled, so the launch is claimed here (one statement less on
          // every start's path than claiming it in ../launch).
          launch_claimed_at: now,
          occupying_slots: sql`requested_slots`,
          status_info: null,
          status_data: sql`status_data || jsonb_build_object('scheduler', jsonb_build_object(
            'retries', coalesce((status_data->'scheduler'->>'retries')::int, 0) + 1,
            'last_try', ${now.toISOString()}::text,
            'failed_predicates', '[]'::jsonb,
            'passed_predicates', ${JSON.stringify(ALL_PASSED.passed.map((name) => ({ name })))}::jsonb))`,
          status_history: sql`status_history || jsonb_build_object('SCHEDULED', ${now.toISOString()}::text)`,
        })
        .where('id', '=', session.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      done.push(row);
    }
    for (const [agentId, delta] of occupiedDelta) {
      const agent = agentRows.find((a) => a.id === agentId)!;
      const occupied = addAmounts(toAmounts(agent.occupied_slots), delta);
      await trx.updateTable('agents').set({ occupied_slots: json(formatSlots(occupied)) }).where('id', '=', agentId).execute();
    }
    return { scheduled: done, reasons };
  }
}

/** What a pass (and the start estimate, ./queue) reads of a pending session. */
export const PENDING_COLUMNS = [
  's.id', 's.access_key', 's.group_id', 's.domain_name', 's.scaling_group_name', 's.priority', 's.created_at', 's.requested_slots',
  's.cluster_size', 's.cluster_mode', 's.agent_list', 's.session_type', 's.starts_at',
] as const;

type PendingRow = Pick<Session, 'id' | 'access_key' | 'group_id' | 'domain_name' | 'scaling_group_name' | 'priority' | 'created_at' | 'requested_slots' | 'cluster_size' | 'cluster_mode' | 'agent_list' | 'session_type' | 'starts_at'>;

export function toPending(s: PendingRow): PendingSession {
  const perKernel: Amounts = {};
  for (const [k, v] of Object.entries(toAmounts(s.requested_slots))) perKernel[k] = v / s.cluster_size;
  return {
    id: s.id,
    accessKey: s.access_key,
    groupId: s.group_id,
    domainName: s.domain_name,
    scalingGroup: s.scaling_group_name,
    priority: s.priority,
    createdAt: new Date(s.created_at).getTime(),
    perKernel,
    kernelCount: s.cluster_size,
    singleNode: s.cluster_mode !== 'multi-node',
    agentList: s.agent_list,
    countsForConcurrency: s.session_type !== 'system',
    unmetDependencies: 0,
    startsAt: s.starts_at ? new Date(s.starts_at).getTime() : null,
  };
}

export function toCapacity(a: Pick<Agent, 'id' | 'scaling_group' | 'available_slots' | 'occupied_slots'>): AgentCapacity {
  const total = toAmounts(a.available_slots);
  return { id: a.id, scalingGroup: a.scaling_group, total, free: subtract(total, toAmounts(a.occupied_slots)) };
}

export function selectionFrom(scheduler: string | undefined): Selection {
  return (['fifo', 'lifo', 'drf'].includes(scheduler ?? '') ? scheduler : 'fifo') as Selection;
}

export function placementFrom(opts: unknown): Placement {
  return String((opts as Record<string, unknown> | undefined)?.agent_selection_strategy ?? 'dispersed').replace('legacy', 'dispersed') as Placement;
}

/** Verdicts are rewritten when they change, and otherwise at most every REFRESH_MS (retries, last_try). */
const REFRESH_MS = 10_000;

function changed(before: SchedulerStatus | null, verdict: Verdict, now: Date): boolean {
  if (!before?.last_try || now.getTime() - Date.parse(before.last_try) >= REFRESH_MS) return true;
  return reasonChanged(before, verdict);
}

/**
 * Whether the checks it fails (or their messages) differ from the last recorded ones. Compared field by field:
 * jsonb does not keep the order of an object's keys.
 */
function reasonChanged(before: SchedulerStatus | null, verdict: Verdict): boolean {
  const was = before?.failed_predicates ?? [];
  return was.length !== verdict.failed.length || verdict.failed.some((f, i) => f.name !== was[i].name || f.msg !== was[i].msg);
}

/**
 * Writes each verdict to its session in one statement: status_data.scheduler (retries counts the passes that
 * recorded a verdict for the session) and status_info.
 */
async function recordVerdicts(trx: Db, verdicts: Map<string, Verdict>, now: Date): Promise<void> {
  if (!verdicts.size) return;
  const rows = [...verdicts].map(([id, v]) => ({ id, info: statusInfo(v), failed: v.failed, passed: v.passed.map((name) => ({ name })) }));
  await sql`
    update sessions as s
    set status_info = x.info,
        status_data = s.status_data || jsonb_build_object('scheduler', jsonb_build_object(
          'retries', coalesce((s.status_data->'scheduler'->>'retries')::int, 0) + 1,
          'last_try', ${now.toISOString()}::text,
          'failed_predicates', x.failed,
          'passed_predicates', x.passed))
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, info text, failed jsonb, passed jsonb)
    where s.id = x.id and s.status = 'PENDING'
  `.execute(trx);
}

/** Limits and current usage of every keypair, project and domain with pending sessions. */
export async function loadLimits(trx: Db, pending: { access_key: string; group_id: string; domain_name: string }[]) {
  const keys = [...new Set(pending.map((p) => p.access_key))];
  const groupIds = [...new Set(pending.map((p) => p.group_id))];
  const domainNames = [...new Set(pending.map((p) => p.domain_name))];
  const live = await trx
    .selectFrom('sessions')
    .select(['access_key', 'group_id', 'domain_name', 'occupying_slots', 'session_type'])
    .where('status', 'in', [...COUNTING_QUOTA])
    .where((eb) => eb.or([eb('access_key', 'in', keys), eb('group_id', 'in', groupIds), eb('domain_name', 'in', domainNames)]))
    .execute();
  // The three scopes' limits in one statement: a pass runs on every submission, and each statement costs.
  const scopeLimits = (scope: string, key: RawBuilder<string>, table: 'groups' | 'domains', column: 'id' | 'name', values: string[]) =>
    trx.selectFrom(table).select([sql.lit(scope).as('scope'), key.as('key'), 'total_resource_slots', sql<number | null>`null::int`.as('max_concurrent_sessions')]).where(column, 'in', values);
  const limits = await trx
    .selectFrom('keypairs as k')
    .innerJoin('keypair_resource_policies as p', 'p.name', 'k.resource_policy')
    .select([sql.lit('keypair').as('scope'), 'k.access_key as key', 'p.total_resource_slots', sql<number | null>`p.max_concurrent_sessions`.as('max_concurrent_sessions')])
    .where('k.access_key', 'in', keys)
    .unionAll(scopeLimits('group', sql<string>`id::text`, 'groups', 'id', groupIds))
    .unionAll(scopeLimits('domain', sql<string>`name`, 'domains', 'name', domainNames))
    .execute();
  const keypairs = new Map<string, ScopeLimit>();
  const groups = new Map<string, ScopeLimit>();
  const domains = new Map<string, ScopeLimit>();
  for (const row of limits) {
    const limit: ScopeLimit = { slots: finite(row.total_resource_slots), using: {} };
    if (row.scope === 'keypair') keypairs.set(row.key, { ...limit, maxSessions: row.max_concurrent_sessions!, sessions: 0 }); // a policy's column is never null
    else (row.scope === 'group' ? groups : domains).set(row.key, limit);
  }
  for (const row of live) {
    const slots = toAmounts(row.occupying_slots);
    const keypair = keypairs.get(row.access_key);
    if (keypair) {
      addAmounts(keypair.using, slots);
      if (row.session_type !== 'system') keypair.sessions! += 1;
    }
    const group = groups.get(row.group_id);
    if (group) addAmounts(group.using, slots);
    const domain = domains.get(row.domain_name);
    if (domain) addAmounts(domain.using, slots);
  }
  return { keypairs, groups, domains };
}

/** A limit map with unlimited entries dropped. */
function finite(slots: Record<string, string>): Amounts {
  const out: Amounts = {};
  for (const [k, v] of Object.entries(toAmounts(slots))) if (Number.isFinite(v)) out[k] = v;
  return out;
}
