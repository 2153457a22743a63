/**
 * GET /stream/session/{name}/httpproxy and /tcpproxy (CONTRACT §11.3, wsproxy v1): raw bytes between the
 * WebSocket and the app's port, starting the app first if it does not run. The port comes from the stored route.
 * Both directions respect backpressure, so a bulk copy (scp, rsync) never piles up in the manager's memory.
 */
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { App } from '../app';
import { appTunnel } from '../apps/app-hosts';
import type { AppRoute } from '../db/schema';
import { watchSessionSocket } from '../culling/activity';
import { Problem } from '../http/problem';
import { acceptsConnections } from '../apps/ports';

/** Stop reading the app while this much is queued for the WebSocket. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

/** Answers a clean 502 before the upgrade when nothing listens on the route's port (a preopen port, a dead app). */
export async function checkAppListening(app: App, route: AppRoute): Promise<AppRoute> {
  if (!(await acceptsConnections(route.host, route.host_port, appTunnel(app, route.host)))) {
    throw new Problem('bad-gateway', `The app ${route.app} is not running (nothing listens on its port).`, { app: route.app });
  }
  return route;
}

export function relayToApp(app: App, route: AppRoute, ws: WebSocket): void {
  const raw = (ws as unknown as { _socket?: net.Socket })._socket;
  const tunnel = appTunnel(app, route.host);
  if (!tunnel) {
    const upstream = net.connect(route.host_port, route.host);
    watchSessionSocket(route.session_id, upstream);
    upstream.setNoDelay(true);
    relay(upstream, ws, raw);
    return;
  }
  // An app on a remote engine's container (../apps/app-hosts): the client waits, unread, until the tunnel is open.
  raw?.pause();
  tunnel(route.host_port).then(
    (upstream) => {
      if (ws.readyState !== ws.OPEN) return upstream.destroy();
      if (raw) watchSessionSocket(route.session_id, raw);
      raw?.resume();
      relay(upstream, ws, raw);
    },
    () => ws.close(1011, 'app unreachable'),
  );
}

function relay(upstream: Duplex, ws: WebSocket, raw: net.Socket | undefined): void {
  let draining: NodeJS.Timeout | null = null;
  upstream.on('data', (chunk) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(chunk, { binary: true });
    if (ws.bufferedAmount > HIGH_WATER_BYTES && !draining) {
      upstream.pause();
      draining = setInterval(() => {
        if (ws.bufferedAmount > HIGH_WATER_BYTES / 4 && ws.readyState === ws.OPEN) return;
        clearInterval(draining!);
        draining = null;
        upstream.resume();
      }, 5);
    }
  });
  upstream.on('close', () => ws.close(1000, 'app closed the connection'));
  upstream.on('error', () => ws.close(1011, 'app unreachable'));
  upstream.on('drain', () => raw?.resume());
  ws.on('message', (data) => {
    if (!upstream.write(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer))) raw?.pause();
  });
  ws.on('close', () => {
    if (draining) clearInterval(draining);
    upstream.destroy();
  });
}
