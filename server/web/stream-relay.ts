/**
 * The dashboard's WebSocket relay: the browser opens /api/stream/... on the dashboard's origin; this checks the
 * Origin (./same-origin, the dashboard's one check) and the next-auth session (./session-keys; the keys never leave
 * the server), signs an upgrade for the manager's /stream/... with the one signing client, and relays the socket
 * with http-proxy-3. It lives in the custom server because route handlers cannot upgrade. The browser's cookies
 * are never forwarded, and the relay mark always is (../http/relayed): the manager treats the stream as a browser's.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import type { Logger } from 'pino';
import { signRequest } from '../client/sign';
import { Problem } from '../http/problem';
import { rawProblem } from '../http/problem-answer';
import { RELAYED_HEADER } from '../http/relayed';
import { isSameOrigin } from './same-origin';
import { sessionKeys } from './session-keys';

export const STREAM_PREFIX = '/api/stream/';

function refuse(socket: Duplex, problem: Problem): void {
  socket.end(rawProblem(problem));
}

export function createStreamRelay(log: Pick<Logger, 'info'>, managerUrl: string) {
  const manager = new URL(managerUrl);
  const proxy = createProxyServer({ target: managerUrl, ws: true });
  proxy.on('error', (err, _req, target) => {
    log.info({ err: err.message }, 'dashboard stream relay failed');
    (target as Duplex | undefined)?.destroy?.();
  });

  return async (req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    socket.on('error', () => socket.destroy());
    if (!isSameOrigin((name) => req.headers[name] as string | undefined)) return refuse(socket, new Problem('generic-forbidden', 'Cross-origin WebSocket connections are refused.'));
    const token = await sessionKeys({ cookie: req.headers.cookie, authorization: req.headers.authorization }).catch(() => null);
    if (!token) return refuse(socket, new Problem('auth-failed', 'Sign in to the dashboard first.'));
    const uri = (req.url ?? '').replace(/^\/api/, '');
    const signed = signRequest({ method: 'GET', uri, host: manager.host, accessKey: token.accessKey, secretKey: token.secretKey });
    const clientIp = req.socket.remoteAddress ?? '';
    for (const name of ['cookie', 'authorization', 'x-forwarded-for']) delete req.headers[name];
    req.url = uri;
    proxy.ws(req, socket, head, { headers: { ...signed, Host: manager.host, 'X-Forwarded-For': clientIp, [RELAYED_HEADER]: '1' } });
  };
}
