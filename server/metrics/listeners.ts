/**
 * What the process's listeners say without touching their handlers: each role's server is remembered for
 * /readyz, WebSocket upgrades are counted by stream until their socket closes (berth_ws_connections), and the app
 * proxy's requests by kind (berth_app_proxy_requests_total). Listeners added beside the servers' own handlers only
 * look at the URL; they never read a body or write an answer.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { App } from '../app';
import { metricsOf } from './registry';

export type ListenerRole = 'manager' | 'web' | 'apps';

/** A role's listener as /readyz sees it: a server of this thread, or the dashboard's in its thread (web/thread). */
export interface Listener {
  readonly listening: boolean;
}

const roles = new WeakMap<App, Map<ListenerRole, Listener>>();

/** The listeners of this process's roles, as /readyz checks them. */
export function listenersOf(app: App): Map<ListenerRole, Listener> {
  let map = roles.get(app);
  if (!map) roles.set(app, (map = new Map()));
  return map;
}

const MANAGER_STREAM = /^\/stream\/session\/[^/]+\/(pty|execute|httpproxy|tcpproxy)(?:[/?]|$)/;

function pathOf(req: http.IncomingMessage): string {
  return req.url ?? '/';
}

function countSocket(app: App, stream: string, socket: Duplex): void {
  const gauge = metricsOf(app).wsConnections;
  gauge.inc({ stream });
  socket.once('close', () => gauge.dec({ stream }));
}

export function watchListener(app: App, role: ListenerRole, server: http.Server): void {
  listenersOf(app).set(role, server);
  if (role === 'manager') {
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
      const stream = MANAGER_STREAM.exec(pathOf(req))?.[1];
      if (stream) countSocket(app, stream, socket);
    });
  } else if (role === 'apps') {
    const requests = metricsOf(app).appProxyRequests;
    server.on('request', (req: http.IncomingMessage) => {
      const path = pathOf(req);
      if (path.startsWith('/app/')) requests.inc({ kind: 'app' });
      else if (path.startsWith('/service/')) requests.inc({ kind: 'service' });
    });
    // Requests the pass-through path forwards never reach node:http's 'request' (../appproxy/passthrough).
    server.on('proxied', (kind: 'app' | 'service') => requests.inc({ kind }));
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
      if (!pathOf(req).startsWith('/app/')) return;
      requests.inc({ kind: 'app' });
      countSocket(app, 'app', socket);
    });
  }
}
