/** §Manager administration (CONTRACT §15): status and freeze, announcement, scheduler operations. */
import { z } from 'zod';
import { route } from '../http/route';
import { bool, list } from '../http/params';
import { managerStatus, setManagerStatus } from '../manager/status';
import { readAnnouncement, updateAnnouncement } from '../manager/announcement';
import { setAgentsSchedulable } from '../manager/agent-scheduling';
import { SCHEDULER_EVENTS, schedulerOf, triggerPass } from '../manager/scheduler';

const lowerCase = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v);
const agentId = z.string().min(1).max(256).refine((s) => !s.includes('\0'), 'must not contain NUL characters');

export const managerRoutes = [
  route({
    method: 'GET', path: '/manager/status', privilege: 'superadmin', status: null,
    summary: "This manager's nodes, status and active session count",
    handler: ({ app, req }) => managerStatus(app, `${app.settings.host}:${req.socket.localPort ?? app.settings.managerPort}`),
  }),
  route({
    method: 'PUT', path: '/manager/status', privilege: 'superadmin', status: null,
    // ManagerStatus is lower-case on the wire; the base spec's RUNNING/FROZEN spelling is accepted too.
    // force_kill: the contract gives it the default false.
    input: z.object({ status: z.preprocess(lowerCase, z.enum(['running', 'frozen'])), force_kill: bool().optional() }),
    summary: 'Freeze or unfreeze the manager (force_kill terminates every session first)',
    handler: ({ app, input }) => setManagerStatus(app, { status: input.status, force_kill: input.force_kill ?? false }),
  }),
  route({
    method: 'GET', path: '/manager/announcement', privilege: 'user', status: null,
    summary: 'The announcement shown to every user',
    handler: ({ app }) => readAnnouncement(app),
  }),
  route({
    method: 'POST', path: '/manager/announcement', privilege: 'superadmin', status: null,
    input: z.object({ enabled: bool(), message: z.string().max(64 * 1024).nullish() }), freeText: ['message'],
    summary: 'Enable (with a message) or disable the announcement',
    handler: ({ app, input }) => updateAnnouncement(app, input),
  }),
  route({
    method: 'POST', path: '/manager/scheduler/operation', privilege: 'superadmin', status: null,
    // args: a JSON array of agent ids, or a string holding one (the base spec types it as a string).
    input: z.object({ op: z.enum(['include-agents', 'exclude-agents']), args: list(agentId).refine((ids) => ids.length > 0, 'needs at least one agent id') }),
    summary: 'Include agents in scheduling or exclude them from it',
    handler: ({ app, input }) => setAgentsSchedulable(app, input.op, input.args),
  }),
  route({
    method: 'POST', path: '/manager/scheduler/trigger', privilege: 'superadmin', status: null,
    input: z.object({ event: z.enum(SCHEDULER_EVENTS) }),
    summary: 'Run a scheduler pass now: schedule, prepare or scale_services',
    handler: ({ app, input }) => triggerPass(app, input.event),
  }),
  route({
    method: 'GET', path: '/manager/scheduler/status', privilege: 'superadmin', status: null,
    summary: "Each scheduler pass's last trigger, start and finish",
    handler: ({ app }) => schedulerOf(app).status(),
  }),
];
