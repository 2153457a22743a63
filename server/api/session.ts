/** §Sessions: create, inspect, execute, manage and destroy compute sessions. */
import { z } from 'zod';
import { emptyAfter, route, raw, type RequestContext } from '../http/route';
import { bool, uuid } from '../http/params';
import { Problem } from '../http/problem';
import { createSession } from '../sessions/create';
import { createSessionSchema, SESSION_TEXT, toCreateInput } from '../sessions/inputs';
import { findSession, matchSessions } from '../sessions/access';
import { dependencyGraph, sessionInfo } from '../sessions/info';
import { destroySession } from '../sessions/destroy';
import { restartSession } from '../sessions/restart';
import { executionsOf } from '../sessions/executions';
import { mainKernel } from '../sessions/execute';
import { renameSession } from '../sessions/rename';
import { kernelLogs, taskLogs } from '../sessions/logs';
import { ensureApp, shutdownApp } from '../apps/services';
import { issueToken } from '../apps/tokens';
import { parseJsonMap } from '../apps/options';
import { int } from '../http/params';

const byName = z.object({ session_name: z.string().min(1), owner_access_key: z.string().nullish() });
const lookup = (ctx: RequestContext<{ session_name: string; owner_access_key?: string | null }>) =>
  findSession(ctx.app, ctx.principal, ctx.input.session_name, { ownerAccessKey: ctx.input.owner_access_key });

const executeSchema = z.object({
  session_name: z.string(),
  owner_access_key: z.string().nullish(),
  mode: z.enum(['query', 'batch', 'complete', 'continue', 'input']),
  runId: z.string().min(1).max(64).nullable(),
  code: z.string().default(''),
  options: z.record(z.string(), z.unknown()).nullish(),
}).refine((v) => v.runId !== null || v.mode === 'query' || v.mode === 'batch' || v.mode === 'complete', { message: 'runId is required for continue and input', path: ['runId'] });

export const sessionRoutes = [
  route({
    method: 'POST', path: ['/session', '/session/_/create'], privilege: 'user', status: 'RUNNING', input: createSessionSchema, freeText: SESSION_TEXT,
    summary: 'Create a compute session (or reuse a live one of the same name)',
    handler: ({ app, principal, input }) => createSession(app, principal, toCreateInput(input)),
  }),
  route({
    method: 'GET', path: '/session/_/match', privilege: 'user', status: 'FROZEN', input: z.object({ id: z.string().min(1) }),
    summary: 'Sessions whose id or name starts with the given text',
    handler: async ({ app, principal, input }) => ({
      matches: (await matchSessions(app, principal, input.id)).map((s) => ({ id: s.id, name: s.name, status: s.status })),
    }),
  }),
  route({
    method: 'POST', path: '/session/_/sync-agent-registry', privilege: 'user', status: 'RUNNING', input: z.object({ agent: z.string().min(1) }),
    summary: "Re-read an agent's kernel registry",
    handler: async ({ app, input }) => {
      const agent = await app.db.selectFrom('agents').select('id').where('id', '=', input.agent).executeTakeFirst();
      if (!agent) throw new Problem('object-not-found', `No such agent: ${input.agent}`, undefined, { title: 'No such agent.' });
      app.triggerScheduler();
      return {};
    },
  }),
  route({
    method: 'GET', path: '/session/_/logs', privilege: 'user', status: 'FROZEN', input: z.object({ session_name: z.string().min(1) }),
    summary: 'The log of a batch task (by kernel id), as text',
    handler: async ({ app, principal, input }) => raw('text/plain; charset=utf-8', await taskLogs(app, principal, input.session_name)),
  }),
  route({
    method: 'HEAD', path: '/session/_/logs', privilege: 'user', status: 'FROZEN', input: z.object({ session_name: z.string().min(1) }),
    summary: 'Headers of a batch task log',
    handler: async ({ app, principal, input }) => raw('text/plain; charset=utf-8', await taskLogs(app, principal, input.session_name)),
  }),
  route({
    method: 'GET', path: '/session/:session_name', privilege: 'user', status: 'FROZEN', input: byName,
    summary: 'Session information', handler: async (ctx) => sessionInfo(ctx.app, await lookup(ctx)),
  }),
  route({
    method: 'PATCH', path: '/session/:session_name', privilege: 'user', status: 'FROZEN', input: byName,
    summary: 'Restart the session (files in /home/work are kept)',
    handler: async (ctx) => emptyAfter(restartSession(ctx.app, await lookup(ctx))),
  }),
  route({
    method: 'POST', path: '/session/:session_name', privilege: 'user', status: 'FROZEN', input: executeSchema, freeText: ['code', 'options'],
    summary: 'Execute code (query, batch, input, continue, complete)',
    handler: async (ctx) => {
      const session = await lookup(ctx);
      const { mode, runId, code, options } = ctx.input;
      return { result: await executionsOf(ctx.app).execute(session, { mode, runId, code, options: options ?? {} }) };
    },
  }),
  route({
    method: 'DELETE', path: '/session/:session_name', privilege: 'user', status: 'FROZEN',
    input: byName.extend({ forced: bool().default(false), recursive: bool().default(false) }),
    summary: 'Destroy the session',
    handler: async (ctx) => destroySession(ctx.app, ctx.principal, await lookup(ctx), ctx.input),
  }),
  route({
    method: 'GET', path: '/session/:session_name/direct-access-info', privilege: 'user', status: 'FROZEN', input: byName,
    summary: 'Direct access details (SFTP/system sessions only)',
    handler: async (ctx) => {
      const session = await lookup(ctx);
      return session.session_type === 'system' ? { session_type: 'system', kernel_role: 'SYSTEM', public_host: ctx.app.settings.host, sshd_ports: [] } : {};
    },
  }),
  route({
    method: 'GET', path: '/session/:session_name/logs', privilege: 'user', status: 'FROZEN', input: byName.extend({ kernel_id: uuid().optional() }),
    summary: "The kernel's console log",
    handler: async (ctx) => ({ result: { logs: await kernelLogs(ctx.app, await lookup(ctx), ctx.input.kernel_id) } }),
  }),
  route({
    method: 'POST', path: '/session/:session_name/rename', privilege: 'user', status: 'RUNNING', input: byName.extend({ name: z.string().min(1) }),
    summary: 'Rename a running session',
    handler: async (ctx) => emptyAfter(renameSession(ctx.app, await lookup(ctx), ctx.input.name)),
  }),
  route({
    method: 'POST', path: '/session/:session_name/interrupt', privilege: 'user', status: 'FROZEN', input: byName,
    summary: 'Interrupt the running code (best effort)',
    handler: async (ctx) => {
      const session = await lookup(ctx);
      executionsOf(ctx.app).interrupt(session.id);
      return {};
    },
  }),
  route({
    method: 'POST', path: '/session/:session_name/complete', privilege: 'user', status: 'FROZEN',
    input: byName.extend({ code: z.string().default(''), options: z.record(z.string(), z.unknown()).nullish() }), freeText: ['code', 'options'],
    summary: 'Code completion',
    handler: async (ctx) => {
      const session = await lookup(ctx);
      const kernel = await mainKernel(ctx.app, session);
      const completions = await ctx.app.agents.get(kernel.agent_id!)!.complete(kernel.id, ctx.input.code);
      return { result: { status: 'finished', completions } };
    },
  }),
  route({
    method: 'GET', path: '/session/:session_name/dependency-graph', privilege: 'user', status: 'FROZEN', input: byName,
    summary: 'The sessions this one depends on, recursively',
    handler: async (ctx) => dependencyGraph(ctx.app, await lookup(ctx)),
  }),
  route({
    method: 'GET', path: '/session/:session_name/abusing-report', privilege: 'user', status: 'RUNNING', input: byName.extend({ login_session_token: z.string().optional() }),
    summary: 'Abuse report of the main kernel',
    handler: async (ctx) => {
      const session = await lookup(ctx);
      const kernel = await ctx.app.db.selectFrom('kernels').select('id').where('session_id', '=', session.id).where('cluster_role', '=', 'main').executeTakeFirst();
      return kernel ? { kernel: kernel.id, abuse_report: null } : {};
    },
  }),
  route({
    method: 'POST', path: '/session/:session_name/start-service', privilege: 'user', status: 'FROZEN', freeText: ['envs', 'arguments'],
    input: byName.extend({
      app: z.string().min(1),
      port: int().pipe(z.number().min(1024).max(65535)).optional(),
      envs: z.string().nullish(),
      arguments: z.string().nullish(),
      login_session_token: z.string().nullish(),
    }),
    summary: 'Start an in-session app; answers a token for the app proxy',
    handler: async (ctx) => {
      if (!ctx.app.appProxyUrl) throw new Problem('service-unavailable', 'No app proxy is configured for this scaling group.');
      const session = await lookup(ctx);
      const route = await ensureApp(ctx.app, session, ctx.input.app, ctx.principal.userId, {
        port: ctx.input.port,
        envs: parseJsonMap(ctx.input.envs, 'envs') as Record<string, string>,
        arguments: parseJsonMap(ctx.input.arguments, 'arguments') as Record<string, string | string[] | null>,
      });
      return { token: await issueToken(ctx.app, route, ctx.principal.userId), wsproxy_addr: ctx.app.appProxyUrl };
    },
  }),
  route({
    method: 'POST', path: '/session/:session_name/shutdown-service', privilege: 'user', status: 'FROZEN', input: byName.extend({ service_name: z.string().min(1) }),
    summary: 'Stop an in-session app',
    handler: async (ctx) => emptyAfter(shutdownApp(ctx.app, await lookup(ctx), ctx.input.service_name)),
  }),
];
