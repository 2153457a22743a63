/**
 * Every status change of a session or kernel goes through here: the row is updated only from a status the
 * state machine allows (a conditional update, so concurrent changes cannot both win), the history records the
 * time of entry, and only then is the event published and the creator's callback_url notified.
 */
import { sql } from 'kysely';
import type { App } from '../app';
import type { Kernel, Session } from '../db/schema';
import { json } from '../db';
import { SESSION_STATUSES, canTransition } from './states';

const SESSION_EVENT: Record<string, string> = {
  PENDING: 'session_enqueued',
  SCHEDULED: 'session_scheduled',
  PREPARING: 'session_preparing',
  RUNNING: 'session_started',
  CANCELLED: 'session_cancelled',
  TERMINATING: 'session_terminating',
  TERMINATED: 'session_terminated',
};

const KERNEL_EVENT: Record<string, string> = {
  PREPARING: 'kernel_preparing',
  PULLING: 'kernel_pulling',
  RUNNING: 'kernel_started',
  CANCELLED: 'kernel_cancelled',
  TERMINATING: 'kernel_terminating',
  TERMINATED: 'kernel_terminated',
};

export interface TransitionOptions {
  reason?: string;
  statusData?: Record<string, unknown>;
  result?: 'success' | 'failure';
  exitCode?: number | null;
  /** Only from these statuses (a subset of those the state machine allows): the caller acted on what it read. */
  from?: readonly string[];
}

/** The columns a status change writes on a session or a kernel: status, its time, history, reason and data. */
function statusChange(to: string, options: TransitionOptions) {
  const now = new Date();
  return {
    status: to,
    status_changed: now,
    status_history: sql<string>`status_history || jsonb_build_object(${to}::text, ${now.toISOString()}::text)`,
    ...(options.reason !== undefined ? { status_info: options.reason } : {}),
    ...(options.statusData ? { status_data: sql<string>`status_data || ${json(options.statusData)}::jsonb` } : {}),
    ...(to === 'TERMINATED' || to === 'CANCELLED' ? { terminated_at: now } : {}),
  };
}

/** Moves a session to `to` if its current status allows it; returns the updated row, or null when it did not. */
export async function transitionSession(app: App, sessionId: string, to: string, options: TransitionOptions = {}): Promise<Session | null> {
  const from = SESSION_STATUSES.filter((s) => canTransition(s, to) && (!options.from || options.from.includes(s)));
  if (!from.length) return null;
  const updated = await app.db
    .updateTable('sessions')
    .set({ ...statusChange(to, options), ...(options.result ? { result: options.result } : {}) })
    .where('id', '=', sessionId)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
  if (!updated) return null;
  app.events.publishStatus(sessionId, to);
  const name = SESSION_EVENT[to];
  if (name) publishSessionEvent(app, updated, name, options.reason ?? '', options.exitCode ?? null);
  return updated;
}

export interface KernelTransitionOptions extends TransitionOptions {
  /** Where a started kernel runs, written in the same update as its RUNNING. */
  started?: { containerId: string; channel: string };
}

/** What a kernel's events carry of its session. */
type EventSession = Pick<Session, 'id' | 'name' | 'access_key' | 'domain_name' | 'group_id'>;

/** A kernel as a transition left it, with what its events carry of its session. */
export interface KernelTransition {
  kernel: Kernel;
  session: EventSession;
}

/** Moves a kernel to `to` unless it is already over; returns the updated row (and its session's) or null. */
export async function transitionKernel(app: App, kernelId: string, to: string, options: KernelTransitionOptions = {}): Promise<KernelTransition | null> {
  // The update and its session's columns for the event in one statement: two of these are on every launch's path.
  const row = await app.db
    .with('updated', (db) =>
      db
        .updateTable('kernels')
        .set({
          ...statusChange(to, options),
          ...(options.exitCode !== undefined ? { exit_code: options.exitCode } : {}),
          ...(options.started ? { container_id: options.started.containerId, channel: options.started.channel } : {}),
        })
        .where('id', '=', kernelId)
        .where('status', 'not in', ['TERMINATED', 'CANCELLED'])
        .returningAll(),
    )
    .selectFrom('updated')
    .innerJoin('sessions as s', 's.id', 'updated.session_id')
    .selectAll('updated')
    .select(['s.name as session_name', 's.access_key as session_access_key', 's.domain_name as session_domain_name', 's.group_id as session_group_id'])
    .executeTakeFirst();
  if (!row) return null;
  const { session_name, session_access_key, session_domain_name, session_group_id, ...kernel } = row;
  const moved = { kernel, session: { id: kernel.session_id, name: session_name, access_key: session_access_key, domain_name: session_domain_name, group_id: session_group_id } };
  const name = KERNEL_EVENT[to];
  if (name) publishKernelEvent(app, moved, name, options.reason ?? '', options.exitCode ?? null);
  return moved;
}

export function publishKernelEvent(app: App, { kernel, session }: KernelTransition, name: string, reason: string, exitCode: number | null): void {
  const exit = ['kernel_terminating', 'kernel_terminated'].includes(name) ? exitCode : null;
  app.events.publishSession(sessionScoped(session, name, reason, exit, { kernelId: kernel.id, clusterRole: kernel.cluster_role, clusterIdx: kernel.cluster_idx }));
}

/** An event in a session's scope, with the payload every session and kernel event carries (and `extra`). */
function sessionScoped(session: EventSession, name: string, reason: string, exitCode: number | null, extra: Record<string, unknown> = {}) {
  return {
    name,
    domainName: session.domain_name,
    groupId: session.group_id,
    payload: { sessionId: session.id, sessionName: session.name, ownerAccessKey: session.access_key, reason, exitCode, ...extra },
  };
}

/** Publishes a session-scope event and notifies the session's callback URL (best effort, CONTRACT §10.3). */
export function publishSessionEvent(app: App, session: Session, name: string, reason: string, exitCode: number | null): void {
  app.events.publishSession(sessionScoped(session, name, reason, ['session_success', 'session_failure'].includes(name) ? exitCode : null));
  if (session.callback_url) notifyCallback(app, session.callback_url, session.id, name.replace(/^session_/, ''));
}

/**
 * A pending session's reason changed (a pass found it waiting for something else): `session_enqueued` again,
 * with the new status_info as its reason, so event listeners see why it still waits. Not a lifecycle step, so the
 * creator's callback_url is not notified.
 */
export function publishPendingReason(app: App, session: Pick<Session, 'id' | 'name' | 'access_key' | 'domain_name' | 'group_id'>, reason: string): void {
  app.events.publishSession(sessionScoped(session, 'session_enqueued', reason, null));
}

function notifyCallback(app: App, url: string, sessionId: string, event: string): void {
  const body = JSON.stringify({ type: 'session_lifecycle', event, session_id: sessionId, when: new Date().toISOString() });
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal: AbortSignal.timeout(5_000) })
    .then((res) => res.body?.cancel())
    .catch((err: unknown) => app.log.debug({ err, url }, 'session callback failed'));
}
