/** §Events: session lifecycle and background-task progress as Server-Sent Events (CONTRACT §10). */
import { z } from 'zod';
import { route, HANDLED } from '../http/route';
import { openSse } from '../http/sse';
import { uuid } from '../http/params';
import { actingAs } from '../auth/delegation';
import { isAdmin, isSuperadmin } from '../auth/principal';
import { notFound } from '../http/problem';
import { findTask } from '../bgtasks/tasks';
import { projectIdByName } from '../projects/values';
import type { SessionEvent } from '../events/bus';

/** The query with each camelCase alias copied to its snake_case name when that name is absent. */
function aliased(v: unknown, aliases: Record<string, string>): unknown {
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = { ...v };
  for (const [name, alias] of Object.entries(aliases)) out[name] ??= out[alias];
  return out;
}

const sessionEventsInput = z.preprocess(
  (v) => aliased(v, { name: 'sessionName', group: 'groupName' }),
  z.object({
    name: z.string().default('*'),
    ownerAccessKey: z.string().optional(),
    sessionId: uuid().optional(),
    group: z.string().default('*'),
    scope: z.enum(['*', 'session', 'kernel']).default('*'),
  }),
);

export const eventRoutes = [
  route({
    method: 'GET', path: '/events/session', privilege: 'user', status: 'FROZEN', input: sessionEventsInput,
    summary: 'Session and kernel lifecycle events (SSE)', stream: 'sse',
    handler: async ({ app, principal, input, req, res }) => {
      const owner = input.ownerAccessKey ? await actingAs(app, principal, input.ownerAccessKey) : null;
      let groupId: string | null = null;
      if (input.group !== '*') {
        groupId = (await projectIdByName(app, principal.domainName, input.group)) ?? null;
        if (!groupId) throw notFound('No such project.');
      }
      const matches = (e: SessionEvent) => {
        const p = e.payload;
        if (input.scope === 'session' && p.kernelId) return false;
        if (input.scope === 'kernel' && !p.kernelId) return false;
        if (input.sessionId) {
          if (p.sessionId !== input.sessionId.toLowerCase()) return false;
        } else {
          if (owner && p.ownerAccessKey !== owner.accessKey) return false;
          if (input.name !== '*' && p.sessionName !== input.name) return false;
        }
        if (groupId && e.groupId !== groupId) return false;
        // Visibility: one's own sessions; a domain admin's domain; everything for superadmins.
        if (isSuperadmin(principal)) return true;
        if (isAdmin(principal)) return e.domainName === principal.domainName;
        return p.ownerAccessKey === principal.accessKey;
      };
      const stream = openSse(req, res);
      const off = app.events.onSession((event) => matches(event) && stream.send(event.name, event.payload));
      const offClose = app.events.onClose(() => stream.close());
      stream.onEnd(() => {
        off();
        offClose();
      });
      return HANDLED;
    },
  }),
  route({
    method: 'GET', path: '/events/background-task', privilege: 'user', status: 'FROZEN',
    input: z.preprocess((v) => aliased(v, { task_id: 'taskId' }), z.object({ task_id: uuid() })),
    summary: 'Progress of a background task (SSE)', stream: 'sse',
    handler: async ({ app, principal, input, req, res }) => {
      const task = await findTask(app, principal, input.task_id.toLowerCase());
      const stream = openSse(req, res);
      if (task.status !== 'started') {
        stream.send(`bgtask_${task.status}`, {
          task_id: task.id, status: task.status, current_progress: task.current_progress, total_progress: task.total_progress, message: task.message,
        });
        stream.close();
        return HANDLED;
      }
      const off = app.events.onTask(task.id, (event) => {
        stream.send(event.name, event.payload);
        if (event.name !== 'bgtask_updated') stream.close();
      });
      const offClose = app.events.onClose(() => stream.close());
      stream.onEnd(() => {
        off();
        offClose();
      });
      // It may have ended between the read and the subscription.
      const again = await app.db.selectFrom('bgtasks').selectAll().where('id', '=', task.id).executeTakeFirst();
      if (again && again.status !== 'started' && !stream.closed) {
        stream.send(`bgtask_${again.status}`, { task_id: again.id, message: again.message });
        stream.close();
      }
      return HANDLED;
    },
  }),
];
