/**
 * The idle checks of a session (issue 14, Backend.AI's model), from its keypair's resource policy:
 * - `idle_timeout` (seconds, 0 = never): an interactive session unused for longer ends with `idle-timeout`;
 * - `max_session_lifetime` (seconds, 0 = never): an interactive or batch session older than that ends with
 *   `session-lifetime`.
 * Model-service (inference) sessions are exempt from both: their service's scaler decides how many run. Batch
 * sessions are exempt from idle_timeout (they run unattended). GET /session/{name} shows the result as
 * `idleChecks`: `{"idle_timeout": {"threshold", "remaining", "last_activity"}, "session_lifetime": {"threshold",
 * "remaining"}}`, each present only when it applies; times in seconds.
 */
import type { App } from '../app';
import type { Session } from '../db/schema';
import { lastSeenActivity } from './activity';

export interface IdleLimits {
  idle_timeout: number;
  max_session_lifetime: number;
}

export interface SessionClock {
  type: string;
  status: string;
  createdAt: Date;
  /** When it last entered RUNNING (a restart counts as use); null if unknown. */
  runningSince: Date | null;
  /** The last use seen (epoch ms; 0 when none). */
  lastActivity: number;
}

export interface IdleChecks {
  idle_timeout?: { threshold: number; remaining: number; last_activity: string };
  session_lifetime?: { threshold: number; remaining: number };
}

export type CullReason = 'idle-timeout' | 'session-lifetime';

const CHECKED_STATUSES = ['RUNNING', 'RUNNING_DEGRADED'];

export function idleVerdict(clock: SessionClock, limits: IdleLimits, now: number): { checks: IdleChecks; expired: CullReason | null } {
  const checks: IdleChecks = {};
  if (!CHECKED_STATUSES.includes(clock.status) || clock.type === 'inference') return { checks, expired: null };
  let expired: CullReason | null = null;
  const lifetime = Number(limits.max_session_lifetime);
  if (lifetime > 0) {
    const remaining = lifetime - (now - clock.createdAt.getTime()) / 1000;
    checks.session_lifetime = { threshold: lifetime, remaining: Math.max(0, Math.floor(remaining)) };
    if (remaining <= 0) expired = 'session-lifetime';
  }
  const idle = Number(limits.idle_timeout);
  if (idle > 0 && clock.type === 'interactive') {
    const lastUse = Math.max(clock.lastActivity, (clock.runningSince ?? clock.createdAt).getTime());
    const remaining = idle - (now - lastUse) / 1000;
    checks.idle_timeout = { threshold: idle, remaining: Math.max(0, Math.floor(remaining)), last_activity: new Date(lastUse).toISOString() };
    if (remaining <= 0) expired ??= 'idle-timeout';
  }
  return { checks, expired };
}

/** When the session last entered RUNNING, from its status history. */
export function runningSince(history: Record<string, string> | null | undefined): Date | null {
  const text = history?.RUNNING;
  const date = text ? new Date(text) : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

type CheckedSession = Pick<Session, 'id' | 'session_type' | 'status' | 'created_at' | 'status_history' | 'last_activity'>;

/** The checks of a session under its policy's limits (none: no checks). */
export function idleChecksWith(session: CheckedSession, limits: IdleLimits | undefined, now = Date.now()): IdleChecks {
  if (!limits || !CHECKED_STATUSES.includes(session.status)) return {};
  const clock: SessionClock = {
    type: session.session_type,
    status: session.status,
    createdAt: session.created_at,
    runningSince: runningSince(session.status_history),
    lastActivity: Math.max(session.last_activity?.getTime() ?? 0, lastSeenActivity(session.id)),
  };
  return idleVerdict(clock, limits, now).checks;
}

/** The idle limits of the keypairs' policies, by access key (keypairs that are gone are absent). */
export async function idleLimitsOf(app: App, accessKeys: string[]): Promise<Map<string, IdleLimits>> {
  if (!accessKeys.length) return new Map();
  const rows = await app.db
    .selectFrom('keypairs as kp')
    .innerJoin('keypair_resource_policies as p', 'p.name', 'kp.resource_policy')
    .select(['kp.access_key', 'p.idle_timeout', 'p.max_session_lifetime'])
    .where('kp.access_key', 'in', accessKeys)
    .execute();
  return new Map(rows.map((r) => [r.access_key, { idle_timeout: r.idle_timeout, max_session_lifetime: r.max_session_lifetime }]));
}

/** GET /session/{name}'s `idleChecks`: what the culler measures for this session right now. */
export async function idleChecksOf(app: App, session: Session): Promise<IdleChecks> {
  if (!CHECKED_STATUSES.includes(session.status)) return {};
  return idleChecksWith(session, (await idleLimitsOf(app, [session.access_key])).get(session.access_key));
}
