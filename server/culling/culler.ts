/**
 * The idle culler (issue 14): every few seconds (BERTH_IDLE_CHECK_INTERVAL) one pass reads the running sessions
 * whose policy sets a limit, with the limits, in one query; stores the activity seen in this process since the
 * last pass in one update; and ends the sessions past a limit with `idle-timeout` or `session-lifetime` through
 * the one termination path (events and all). A pass costs O(running sessions), whatever the traffic.
 *
 * Each manager culls the sessions of the agents it drives, so replicas never reach for each other's kernels. Every
 * replica stores the activity it saw; with several replicas only the holder of the `idle-culler` lease ends
 * sessions (`mayEnd`), so one verdict is taken once, from everyone's stored activity.
 */
import { sql } from 'kysely';
import type { App } from '../app';
import { terminateSession } from '../sessions/terminate';
import { forgetQuietSessions, sampleActivity } from './activity';
import { idleVerdict, runningSince, type CullReason } from './checks';

/** Activity held in memory after it is stored, in case the session is still around. */
const FORGET_AFTER_MS = 60 * 60 * 1000;

export interface PassResult {
  checked: number;
  stored: number;
  culled: { sessionId: string; reason: CullReason }[];
}

export class IdleCuller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  /** Sessions being terminated (not culled twice), and the terminations, which stop() waits for. */
  private readonly ending = new Map<string, Promise<unknown>>();
  /** What each session's last_activity holds, as far as this process wrote or read it. */
  private readonly stored = new Map<string, number>();

  constructor(private readonly app: App, private readonly intervalMs: number, private readonly mayEnd: () => boolean = () => true) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.pass().catch((err: unknown) => this.app.log.warn({ err }, 'idle check failed'));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await Promise.all(this.ending.values());
  }

  async pass(now = Date.now()): Promise<PassResult> {
    const agentIds = [...this.app.agents.keys()];
    const seen = sampleActivity(now);
    if (!agentIds.length) return { checked: 0, stored: 0, culled: [] };
    const rows = await this.app.db
      .selectFrom('sessions as s')
      .innerJoin('kernels as k', (join) => join.onRef('k.session_id', '=', 's.id').on('k.cluster_role', '=', 'main'))
      .innerJoin('keypairs as kp', 'kp.access_key', 's.access_key')
      .innerJoin('keypair_resource_policies as p', 'p.name', 'kp.resource_policy')
      .select(['s.id', 's.session_type', 's.status', 's.created_at', 's.status_history', 's.last_activity', 'p.idle_timeout', 'p.max_session_lifetime'])
      .where('s.status', 'in', ['RUNNING', 'RUNNING_DEGRADED'])
      .where('s.session_type', '!=', 'inference')
      .where((eb) => eb.or([eb('p.idle_timeout', '>', 0), eb('p.max_session_lifetime', '>', 0)]))
      .where('k.agent_id', 'in', agentIds)
      .execute();

    const updates: { id: string; at: number }[] = [];
    const culled: PassResult['culled'] = [];
    for (const row of rows) {
      const inDb = row.last_activity?.getTime() ?? 0;
      const here = seen.get(row.id) ?? 0;
      if (here > inDb && here > (this.stored.get(row.id) ?? 0)) updates.push({ id: row.id, at: here });
      const clock = { type: row.session_type, status: row.status, createdAt: row.created_at, runningSince: runningSince(row.status_history), lastActivity: Math.max(inDb, here) };
      const { expired } = idleVerdict(clock, row, now);
      if (expired && this.mayEnd() && !this.ending.has(row.id)) culled.push({ sessionId: row.id, reason: expired });
    }
    await this.store(updates);
    const checked = new Set(rows.map((r) => r.id));
    for (const id of this.stored.keys()) if (!checked.has(id)) this.stored.delete(id);
    for (const { sessionId, reason } of culled) this.end(sessionId, reason);
    forgetQuietSessions(FORGET_AFTER_MS, now);
    return { checked: rows.length, stored: updates.length, culled };
  }

  /** One statement for every session used since the last pass; a newer value stored by a replica is kept. */
  private async store(updates: { id: string; at: number }[]): Promise<void> {
    if (!updates.length) return;
    const ids = updates.map((u) => u.id);
    const times = updates.map((u) => new Date(u.at).toISOString());
    await sql`
      update sessions as s set last_activity = v.at
      from unnest(${ids}::uuid[], ${times}::timestamptz[]) as v(id, at)
      where s.id = v.id and (s.last_activity is null or s.last_activity < v.at)
    `.execute(this.app.db);
    for (const u of updates) this.stored.set(u.id, u.at);
  }

  private end(sessionId: string, reason: CullReason): void {
    this.app.log.info({ sessionId, reason }, 'ending an idle session');
    const ended = terminateSession(this.app, sessionId, reason)
      .catch((err: unknown) => this.app.log.error({ err, sessionId, reason }, 'idle session termination failed'))
      .finally(() => this.ending.delete(sessionId));
    this.ending.set(sessionId, ended);
  }
}
