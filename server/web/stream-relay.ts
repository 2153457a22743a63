/**
 * The dashboard's WebSocket relay: the browser opens /api/stream/... on the dashboard's origin; this checks the
 * Origin and the next-auth session (the keys never leave the server), signs an upgrade for the manager's
 * /stream/... with the one signing client, and relays the socket with http-proxy-3. The browser's cookies are
 * never forwarded.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import type { App } from '../app';
import { signRequest } from '../client/sign';
import { Problem } from '../http/problem';
import { sessionKeys } from './session-keys';

export const STREAM_PREFIX = '/api/stream/';

function refuse(socket: Duplex, problem: Problem): void {
  const body = JSON.stringify(problem.toJSON());
  socket.end(`HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function sameOrigin(req: http.IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return false;
  const allowed = new Set<string>();
  if (req.headers.host) allowed.add(`http://${req.headers.host}`).add(`https://${req.headers.host}`);
  if (process.env.NEXTAUTH_URL) {
    try {
      allowed.add(new URL(process.env.NEXTAUTH_URL).origin);
    } catch {
      /* an unparsable setting adds nothing */
    }
  }
  return allowed.has(origin);
}

export function createStreamRelay(app: App, managerUrl: string) {
  const manager = new URL(managerUrl);
  const proxy = createProxyServer({ target: managerUrl, ws: true });
  proxy.on('error', (err, _req, target) => {
    app.log.info({ err: err.message }, 'dashboard stream relay failed');
    (target as Duplex | undefined)?.destroy?.();
  });

  return async (req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    socket.on('error', () => socket.destroy());
    if (!sameOrigin(req)) return refuse(socket, new Problem('generic-forbidden', 'Cross-origin WebSocket connections are refused.'));
    const token = await sessionKeys({ cookie: req.headers.cookie, authorization: req.headers.authorization }).catch(() => null);
    if (!token) return refuse(socket, new Problem('auth-failed', 'Sign in to the dashboard first.'));
    const uri = (req.url ?? '').replace(/^\/api/, '');
    const signed = signRequest({ method: 'GET', uri, host: manager.host, accessKey: token.accessKey, secretKey: token.secretKey });
    const clientIp = req.socket.remoteAddress ?? '';
    for (const name of ['cookie', 'authorization', 'x-forwarded-for']) delete req.headers[name];
    req.url = uri;
    proxy.ws(req, socket, head, { headers: { ...signed, Host: manager.host, 'X-Forwarded-For': clientIp } });
  };
}
