/**
 * Health of a route (CONTRACT §13): a real HTTP probe of the route's model server on its host port. A new route
 * is probed often until it answers its check (healthy), its server exits, or `initial_delay` passes (then it
 * failed to start). A healthy route is probed every `interval`; `max_retries` consecutive failures make it
 * unhealthy and a success makes it healthy again. Without a health check, a server that listens is healthy.
 */
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { App } from '../app';
import type { Agent, AppConnector } from '../agents/agent';
import type { RouteStatus } from '../db/schema';
import type { HealthCheck } from './model-definition';
import { MODEL_APP, failRoute } from './routes';
import { routeTableOf } from './route-table';
import { withTimeout } from '../util/timeout';

const PROVISIONING_PROBE_MS = 300;
const DEFAULT_START_SECONDS = 60;
const DEFAULT_INTERVAL_SECONDS = 10;

export interface ProbeResult {
  ok: boolean;
  detail: string;
}

/** Opens a connection to a port of an app host this machine cannot reach directly (Agent.appConnector). */

/**
 * One probe of a model server: without a check, whether it takes a connection; with one, whether GET `check.path`
 * answers the expected status. `tunnel`: the way to the host when it is a container on a remote engine.
 */
export function probe(host: string, port: number, check: HealthCheck | null, tunnel: AppConnector | null = null): Promise<ProbeResult> {
  if (!check && tunnel) {
    const opening = tunnel(port);
    return withTimeout(opening, 5_000, 'timed out').then(
      (stream) => (stream.destroy(), { ok: true, detail: 'listening' }),
      (err: Error) => {
        void opening.then((late) => late.destroy(), () => undefined);
        return { ok: false, detail: `not listening: ${err.message}` };
      },
    );
  }
  if (!check) {
    return new Promise((resolve) => {
      const socket = net.connect(port, host);
      socket.setTimeout(5_000, () => socket.destroy(new Error('timed out')));
      socket.once('connect', () => {
        socket.destroy();
        resolve({ ok: true, detail: 'listening' });
      });
      socket.once('error', (err) => resolve({ ok: false, detail: `not listening: ${err.message}` }));
    });
  }
  return new Promise((resolve) => {
    // A fresh connection per probe: no agent, or the tunnel's own (node ignores createConnection with agent: false).
    const connection: http.RequestOptions = tunnel
      ? { createConnection: (_, done) => void tunnel(port).then((stream) => done(null, stream), (err: Error) => done(err, undefined as unknown as Duplex)) }
      : { agent: false };
    const req = http.get({ host, port, path: check.path, timeout: check.maxWaitTime * 1000, ...connection }, (res) => {
      res.resume();
      const ok = res.statusCode === check.expectedStatusCode;
      resolve({ ok, detail: `GET ${check.path} answered ${res.statusCode}${ok ? '' : `, expected ${check.expectedStatusCode}`}` });
    });
    req.once('timeout', () => req.destroy(new Error(`no answer within ${check.maxWaitTime} s`)));
    req.once('error', (err) => resolve({ ok: false, detail: `GET ${check.path} failed: ${err.message}` }));
  });
}

interface MonitorTarget {
  routeId: string;
  endpointId: string;
  port: number;
  kernelId: string;
  agent: Agent;
  check: HealthCheck | null;
}

const monitors = new WeakMap<App, Map<string, RouteMonitor>>();

export function monitorsOf(app: App): Map<string, RouteMonitor> {
  let map = monitors.get(app);
  if (!map) monitors.set(app, (map = new Map()));
  return map;
}

/** Watches one route until it leaves service; `onChange` asks the scaler for a pass. */
export class RouteMonitor {
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly app: App,
    private readonly target: MonitorTarget,
    private readonly onChange: () => void,
  ) {}

  /** Settles once the monitor has stopped. */
  done: Promise<void> = Promise.resolve();

  static start(app: App, target: MonitorTarget, onChange: () => void): void {
    const all = monitorsOf(app);
    if (all.has(target.routeId)) return;
    const monitor = new RouteMonitor(app, target, onChange);
    all.set(target.routeId, monitor);
    monitor.done = monitor
      .run()
      .catch((err) => app.log.warn({ err, routeId: target.routeId }, 'service route monitor failed'))
      .finally(() => all.delete(target.routeId));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
      this.timer.unref();
    });
  }

  private async status(): Promise<string | null> {
    const row = await this.app.db.selectFrom('routings').select('status').where('id', '=', this.target.routeId).executeTakeFirst();
    return row?.status ?? null;
  }

  private async set(status: 'healthy' | 'unhealthy', from: RouteStatus[]): Promise<void> {
    const changed = await this.app.db
      .updateTable('routings')
      .set({ status, status_changed: new Date() })
      .where('id', '=', this.target.routeId)
      .where('status', 'in', from)
      .returning('id')
      .executeTakeFirst();
    if (changed) {
      routeTableOf(this.app).invalidate(this.target.endpointId);
      this.onChange();
    }
  }

  /** The server process is gone: why, in the words the errors list shows. */
  private async exited(): Promise<Record<string, unknown> | null> {
    const { agent, kernelId } = this.target;
    if (!agent.isAlive(kernelId)) return { name: 'KernelGone', repr: 'The inference session stopped running.' };
    const app = await agent.appStatus(kernelId, MODEL_APP).catch(() => null);
    if (app && !app.alive) return { name: 'ModelServerExited', repr: `The model server exited with code ${app.exitCode}.`, exit_code: app.exitCode, output: app.output };
    return null;
  }

  /** Probes the route's server where its kernel's backend says it listens, through the engine when it must. */
  private probe(): Promise<ProbeResult> {
    const { agent, kernelId, port, check } = this.target;
    const host = agent.appHost(kernelId);
    return probe(host, port, check, agent.appConnector?.(host) ?? null);
  }

  private async run(): Promise<void> {
    const { check } = this.target;
    // Starting: until the first good answer.
    const deadline = Date.now() + (check?.initialDelay ?? DEFAULT_START_SECONDS) * 1000;
    for (;;) {
      if (this.stopped) return;
      const status = await this.status();
      if (status !== 'provisioning') break;
      const result = await this.probe();
      if (this.stopped) return;
      if (result.ok) {
        await this.set('healthy', ['provisioning']);
        break;
      }
      const exit = await this.exited();
      if (this.stopped) return;
      if (exit || Date.now() > deadline) {
        await failRoute(this.app, this.target.routeId, exit ?? { name: 'HealthCheckTimeout', repr: `The model server did not pass its health check in time (${result.detail}).` });
        routeTableOf(this.app).invalidate(this.target.endpointId);
        this.onChange();
        return;
      }
      await this.sleep(PROVISIONING_PROBE_MS);
    }
    // Serving: a check every interval.
    let failures = 0;
    const maxRetries = check?.maxRetries ?? 1;
    for (;;) {
      await this.sleep((check?.interval ?? DEFAULT_INTERVAL_SECONDS) * 1000);
      if (this.stopped) return;
      const status = await this.status();
      if (status !== 'healthy' && status !== 'unhealthy') return;
      const result = await this.probe();
      if (this.stopped) return;
      failures = result.ok ? 0 : failures + 1;
      if (result.ok) await this.set('healthy', ['unhealthy']);
      else if (failures >= maxRetries) await this.set('unhealthy', ['healthy']);
    }
  }
}
