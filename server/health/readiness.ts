/**
 * GET /readyz (issue 14): ready when the database answers, every role this process was started with is
 * listening, and every agent this process drives is ALIVE. Otherwise a 503 problem+json names what is not.
 */
import type { App } from '../app';
import { agentServices } from '../agents/watcher';
import { Problem } from '../http/problem';
import { listenersOf, type ListenerRole } from '../metrics/listeners';
import { withTimeout } from '../util/timeout';

const DATABASE_TIMEOUT_MS = 2_000;

export interface Check {
  ok: boolean;
  detail: string;
}

const expected = new WeakMap<App, ListenerRole[]>();

/** The roles this process starts (before they listen, so a half-started process is not ready). */
export function expectRoles(app: App, roles: ListenerRole[]): void {
  expected.set(app, roles);
}

async function agentStatuses(app: App, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await app.db.selectFrom('agents').select(['id', 'status']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.status]));
}

export async function readinessChecks(app: App): Promise<Record<string, Check>> {
  const checks: Record<string, Check> = {};
  const services = [...agentServices(app).values()];
  // One query answers both: whether the database is there and what it says of our agents.
  let statuses: Map<string, string> | null = null;
  try {
    statuses = await withTimeout(agentStatuses(app, services.map((s) => s.agentId)), DATABASE_TIMEOUT_MS);
    if (!services.length) await withTimeout(app.db.selectNoFrom((eb) => eb.lit(1).as('one')).execute(), DATABASE_TIMEOUT_MS);
    checks.database = { ok: true, detail: app.dbKind };
  } catch (err) {
    checks.database = { ok: false, detail: `${app.dbKind} does not answer: ${err instanceof Error ? err.message : String(err)}` };
  }
  const listeners = listenersOf(app);
  for (const role of expected.get(app) ?? [...listeners.keys()]) {
    const server = listeners.get(role);
    checks[`listener:${role}`] = server?.listening ? { ok: true, detail: 'listening' } : { ok: false, detail: 'not listening' };
  }
  for (const service of services) {
    const status = statuses?.get(service.agentId);
    const ok = service.running && status === 'ALIVE';
    checks[`agent:${service.agentId}`] = { ok, detail: !service.running ? 'stopped' : (status ?? (statuses ? 'not registered' : 'unknown: no database')) };
  }
  return checks;
}

/** The body of a ready answer, or a 503 naming every check that failed. */
export async function readiness(app: App): Promise<{ status: 'ready'; checks: Record<string, Check> }> {
  const checks = await readinessChecks(app);
  const failed = Object.entries(checks).filter(([, c]) => !c.ok);
  if (failed.length) {
    throw new Problem('service-unavailable', `Not ready: ${failed.map(([name, c]) => `${name} (${c.detail})`).join('; ')}.`, { checks });
  }
  return { status: 'ready', checks };
}
