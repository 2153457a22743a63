/**
 * The agent service and its watcher (`/resource/watcher*`): the local agent heartbeats every 20 s while it runs;
 * stopping it marks the agent TERMINATED and unschedulable (its kernels keep running), starting it registers it
 * ALIVE again with its real slots, and agents of any backend silent for 40 s become LOST.
 */
import type { App } from '../app';
import { json } from '../db';
import { localSlots } from './register-local';

export const HEARTBEAT_MS = 20_000;
export const LOST_AFTER_MS = 40_000;

export class AgentService {
  private timer: NodeJS.Timeout | null = null;
  startedAt: Date | null = null;

  constructor(private readonly app: App, readonly agentId: string) {}

  get running(): boolean {
    return this.timer !== null;
  }

  async start(): Promise<void> {
    if (this.timer) return;
    const now = new Date();
    await this.app.db
      .updateTable('agents')
      .set({ status: 'ALIVE', status_changed: now, last_heartbeat: now, lost_at: null, available_slots: json(localSlots()) })
      .where('id', '=', this.agentId)
      .execute();
    this.startedAt = now;
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
    this.app.triggerScheduler();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.startedAt = null;
    await this.app.db.updateTable('agents').set({ status: 'TERMINATED', status_changed: new Date() }).where('id', '=', this.agentId).execute();
  }

  /** Stops heartbeating without marking the agent TERMINATED: another replica on this machine may serve it on. */
  async halt(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.startedAt = null;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /**
   * One heartbeat, and the sweep that marks silent agents LOST (idempotent, so every replica with the agent role
   * may run it: no lease needed, and no agent goes unwatched while any replica runs).
   */
  async beat(): Promise<void> {
    const now = new Date();
    try {
      await this.app.db.updateTable('agents').set({ last_heartbeat: now }).where('id', '=', this.agentId).execute();
      await this.app.db
        .updateTable('agents')
        .set({ status: 'LOST', status_changed: now, lost_at: now })
        .where('status', '=', 'ALIVE')
        .where('last_heartbeat', '<', new Date(now.getTime() - LOST_AFTER_MS))
        .execute();
    } catch (err) {
      this.app.log.warn({ err }, 'agent heartbeat failed');
    }
  }

  status() {
    return {
      agent_id: this.agentId,
      status: this.running ? 'running' : 'stopped',
      started_at: this.startedAt?.toISOString() ?? null,
      heartbeat_interval: HEARTBEAT_MS / 1000,
      pid: process.pid,
    };
  }
}

const services = new WeakMap<App, Map<string, AgentService>>();

export function agentServices(app: App): Map<string, AgentService> {
  let map = services.get(app);
  if (!map) services.set(app, (map = new Map()));
  return map;
}
