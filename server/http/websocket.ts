/**
 * WebSocket upgrades on the manager port: the same route table and the same checks as any request (admit in
 * ./pipeline: signature, rate limit, privilege, status, validation); a refusal is an HTTP problem+json answer
 * on the socket, so clients see the same errors as over plain HTTP.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { App } from '../app';
import { trackWebSockets } from '../cluster/drain';
import { admit, answerHeaders, toProblem } from './pipeline';
import { Problem } from './problem';
import { rawProblem } from './problem-answer';
import type { RouteDef } from './route';
import { Router } from './router';

/** CONTRACT §17: 16 MiB per message. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export function createUpgradeHandler(app: App, routes: RouteDef[]): UpgradeHandler {
  const router = new Router(routes.filter((r) => r.websocket));
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  trackWebSockets(app, wss);
  const extraHeaders = new WeakMap<IncomingMessage, Record<string, string>>();
  wss.on('headers', (lines, req) => {
    for (const [name, value] of Object.entries(extraHeaders.get(req) ?? {})) lines.push(`${name}: ${value}`);
  });
  return (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const headers = answerHeaders();
    void (async () => {
      const rawUrl = req.url ?? '/';
      const queryAt = rawUrl.indexOf('?');
      const path = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
      const match = router.find('GET', path);
      if (!match) throw new Problem('url-not-found', `No WebSocket endpoint at ${path}.`, path);
      const { principal, input, rawBody, clientIp, relayed } = await admit(app, match.route, req, 'GET', rawUrl, queryAt, match.params, headers);
      const ctx = { app, req, res: undefined as never, input, principal, rawBody, requestId: '', clientIp, relayed };
      const stream = match.route.websocket!;
      const prepared = await stream.prepare(ctx);
      if (stream.headers) extraHeaders.set(req, stream.headers(prepared));
      wss.handleUpgrade(req, socket, head, (ws) => {
        Promise.resolve(stream.open(ctx, prepared, ws)).catch((err: unknown) => {
          app.log.warn({ err }, 'websocket stream failed');
          ws.close(1011, 'internal error');
        });
      });
    })().catch((err: unknown) => {
      socket.end(rawProblem(toProblem(err, app), headers));
    });
  };
}
