/** §Streams: terminals, code execution and app relays over WebSocket, and the session's app list. */
import { z } from 'zod';
import { route, upgradeRequired, type RequestContext } from '../http/route';
import { int } from '../http/params';
import { findSession } from '../sessions/access';
import { mainKernel } from '../sessions/execute';
import { compactServicePorts, sessionApps } from '../apps/session-apps';
import { openTerminal, servePty } from '../streams/pty';
import { serveExecute } from '../streams/execute';
import { checkAppListening, relayToApp } from '../streams/app-relay';
import { appBasePath, ensureApp } from '../apps/services';
import { parseJsonMap } from '../apps/options';

const byName = z.object({ session_name: z.string().min(1), owner_access_key: z.string().nullish() });
const appQuery = byName.extend({ app: z.string().min(1), port: int().pipe(z.number().min(1024).max(65535)).optional(), envs: z.string().optional(), arguments: z.string().optional() });

const running = async (ctx: RequestContext<{ session_name: string; owner_access_key?: string | null }>) => {
  const session = await findSession(ctx.app, ctx.principal, ctx.input.session_name, { ownerAccessKey: ctx.input.owner_access_key });
  await mainKernel(ctx.app, session);
  return session;
};

const appRelay = (protocol: 'http' | 'tcp') =>
  route({
    method: 'GET', path: `/stream/session/:session_name/${protocol}proxy`, privilege: 'user', status: 'FROZEN', input: appQuery,
    summary: `WebSocket relay of raw bytes to an app's ${protocol.toUpperCase()} port (wsproxy v1)`,
    handler: upgradeRequired,
    websocket: {
      prepare: async (ctx) =>
        checkAppListening(
          ctx.app,
          await ensureApp(ctx.app, await running(ctx), ctx.input.app, ctx.principal.userId, {
            port: ctx.input.port,
            envs: parseJsonMap(ctx.input.envs, 'envs') as Record<string, string>,
            arguments: parseJsonMap(ctx.input.arguments, 'arguments') as Record<string, string | string[] | null>,
          }),
        ),
      open: (ctx, route, ws) => relayToApp(ctx.app, route, ws),
      // Where an HTTP app is served (its base path), so a local forward (`berth app`) can print the right URL.
      headers: (route) => ({ 'X-Berth-App-Path': appBasePath(route.id), 'X-Berth-App-Protocol': route.protocol }),
    },
  });

export const streamRoutes = [
  route({
    method: 'GET', path: '/stream/session/:session_name/pty', privilege: 'user', status: 'FROZEN', input: byName,
    summary: 'A terminal in the session (WebSocket, JSON frames)',
    handler: upgradeRequired,
    websocket: {
      prepare: async (ctx) => {
        const session = await running(ctx);
        return { session, terminal: await openTerminal(ctx.app, session) };
      },
      open: (ctx, { session, terminal }, ws) => servePty(ctx.app, session, terminal, ws),
    },
  }),
  route({
    method: 'GET', path: '/stream/session/:session_name/execute', privilege: 'user', status: 'FROZEN', input: byName,
    summary: 'Run code over a WebSocket (one run per socket)',
    handler: upgradeRequired,
    websocket: { prepare: running, open: (ctx, session, ws) => serveExecute(ctx.app, session, ws) },
  }),
  appRelay('http'),
  appRelay('tcp'),
  route({
    method: 'GET', path: '/stream/session/:session_name/apps', privilege: 'user', status: 'FROZEN', input: byName,
    summary: "The session's apps (service ports), as plain JSON",
    handler: async (ctx) => {
      const session = await findSession(ctx.app, ctx.principal, ctx.input.session_name, { ownerAccessKey: ctx.input.owner_access_key });
      return compactServicePorts(await sessionApps(ctx.app, session));
    },
  }),
];
