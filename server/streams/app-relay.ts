/**
 * GET /stream/session/{name}/httpproxy and /tcpproxy (CONTRACT §11.3, wsproxy v1): raw bytes between the
 * WebSocket and the app's port, starting the app first if it does not run. The port comes from the stored route.
 */
import net from 'node:net';
import type { WebSocket } from 'ws';
import type { AppRoute } from '../db/schema';
import { watchSessionSocket } from '../culling/activity';

export function relayToApp(route: AppRoute, ws: WebSocket): void {
  const upstream = net.connect(route.host_port, route.host);
  watchSessionSocket(route.session_id, upstream);
  upstream.on('data', (chunk) => ws.readyState === ws.OPEN && ws.send(chunk, { binary: true }));
  upstream.on('close', () => ws.close(1000, 'app closed the connection'));
  upstream.on('error', () => ws.close(1011, 'app unreachable'));
  ws.on('message', (data) => upstream.write(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer)));
  ws.on('close', () => upstream.destroy());
}
