/**
 * The backend-for-frontend relay: /api/manager/<path>?<query> → the manager's /<path>?<query>, signed with the
 * signed-in user's keys (read from the sealed session cookie, server-side: ./session-keys) by the one signing
 * client. The manager's status, content type and body come back as they are; the browser's cookies and headers
 * other than a short allow-list never reach the manager.
 *
 * It runs in the custom server (./next-server) ahead of Next, like the WebSocket relay (./stream-relay): the
 * dashboard calls it for every list and action, and Next's route-handler pipeline (routing, tracing, Web streams,
 * compression) cost several times what the relay itself does. Pages and the other route handlers stay in Next.
 */
import http from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { App } from '../app';
import { BerthClient } from '../client/client';
import { Problem } from '../http/problem';
import { EVENT_STREAM, relayEvents } from './event-relay';
import { isSameOrigin } from './same-origin';
import { SECURITY_HEADERS } from './security-headers';
import { sessionKeys } from './session-keys';

export const MANAGER_RELAY_PREFIX = '/api/manager';

const RELAYED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'x-method-override'];
const RETURNED_RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'content-disposition',
  'content-language',
  'allow',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-window',
];
const NO_BODY_STATUS = new Set([101, 204, 205, 304]);
/** GraphQL documents that select a key field are refused: a script in the page must not be able to read keys. */
const GRAPHQL_PATHS = new Set(['/admin/gql', '/admin/graphql', '//gql', '//graphql']);
const KEY_SELECTION = /\b(secret_key|access_key|main_access_key|ssh_private_key)\b/;
/** Answers gzip-compressed for browsers that accept it, as Next compressed them: textual ones from 1 KiB (its threshold). */
const COMPRESSIBLE = /json|text|javascript|xml/;
const COMPRESS_FROM_BYTES = 1024;

function compresses(req: http.IncomingMessage, answer: http.IncomingMessage): boolean {
  const length = Number(answer.headers['content-length'] ?? Infinity);
  return /\bgzip\b/.test(req.headers['accept-encoding'] ?? '') && COMPRESSIBLE.test(answer.headers['content-type'] ?? '') && length >= COMPRESS_FROM_BYTES;
}

/** The manager path and query a request addresses, or null when it is not for the relay (dot segments resolved). */
export function relayedUri(url: string | undefined): string | null {
  if (!url?.startsWith(MANAGER_RELAY_PREFIX)) return null;
  const { pathname, search } = new URL(url, 'http://relay');
  if (pathname !== MANAGER_RELAY_PREFIX && !pathname.startsWith(`${MANAGER_RELAY_PREFIX}/`)) return null;
  return (pathname.slice(MANAGER_RELAY_PREFIX.length) || '/') + search;
}

function sendProblem(res: http.ServerResponse, problem: Problem): void {
  const body = JSON.stringify(problem.toJSON());
  res.writeHead(problem.status, {
    ...SECURITY_HEADERS,
    ...problem.headers,
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The relay as a request handler for the custom server; `uri` is relayedUri(req.url). */
export function createManagerRelay(app: App, managerUrl: string) {
  const endpoint = new URL(managerUrl);
  // One keep-alive pool for every user's calls; event streams get unpooled connections of their own.
  const client = new BerthClient({ endpoint: managerUrl });
  const eventAgent = endpoint.protocol === 'https:' ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false });
  const unreachable = (err: unknown) => {
    app.log.error({ err: err instanceof Error ? err.message : err }, 'dashboard relay: the manager is unreachable');
    return new Problem('service-unavailable', 'The manager could not be reached. Try again shortly.');
  };

  async function relay(req: http.IncomingMessage, res: http.ServerResponse, uri: string): Promise<void> {
    const method = req.method ?? 'GET';
    if (!RELAYED_METHODS.has(method)) {
      return sendProblem(res, new Problem('method-not-allowed', `${method} is not relayed.`, undefined, { headers: { Allow: [...RELAYED_METHODS].join(', ') } }));
    }
    const header = (name: string) => req.headers[name] as string | undefined;
    if (MUTATING.has(method) && !isSameOrigin(header)) {
      return sendProblem(res, new Problem('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.'));
    }
    const keys = await sessionKeys({ cookie: req.headers.cookie, authorization: req.headers.authorization });
    if (!keys) return sendProblem(res, new Problem('auth-failed', 'Sign in to the dashboard first.'));

    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = header(name);
      if (value) headers[name] = value;
    }
    const clientIp = req.socket.remoteAddress;
    if (clientIp) headers['X-Forwarded-For'] = clientIp;

    if (method === 'GET' && (header('accept') ?? '').includes(EVENT_STREAM)) {
      const streamer = new BerthClient({ endpoint: managerUrl, ...keys, agent: eventAgent });
      return relayEvents(streamer, uri, headers, res).catch((err) => sendProblem(res, unreachable(err)));
    }
    const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req);
    const path = uri.split('?', 1)[0];
    if (body && GRAPHQL_PATHS.has(path) && KEY_SELECTION.test(body.toString('utf8'))) {
      return sendProblem(res, new Problem('generic-forbidden', 'Keys are not available through the dashboard.'));
    }

    let answer: http.IncomingMessage;
    try {
      answer = await client.withCredentials(keys).open(method, uri, {
        rawBody: body?.length ? body : undefined,
        contentType: header('content-type') ?? 'application/json',
        headers,
      });
    } catch (err) {
      return sendProblem(res, unreachable(err));
    }
    const status = answer.statusCode ?? 502;
    const returned: Record<string, string | string[]> = { ...SECURITY_HEADERS, 'Cache-Control': 'no-store' };
    for (const name of RETURNED_RESPONSE_HEADERS) {
      const value = answer.headers[name];
      if (value !== undefined) returned[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const hasBody = !NO_BODY_STATUS.has(status) && method !== 'HEAD';
    const gzip = hasBody && compresses(req, answer);
    if (gzip) {
      delete returned['content-length'];
      Object.assign(returned, { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    }
    res.writeHead(status, returned);
    if (!hasBody) {
      answer.resume();
      res.end();
      return;
    }
    // Streamed as it arrives; either side going away ends the other.
    const done = () => undefined;
    if (gzip) pipeline(answer, createGzip(), res, done);
    else pipeline(answer, res, done);
  }

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, uri: string): void => {
    relay(req, res, uri).catch((err: unknown) => {
      app.log.error({ err }, 'dashboard relay failed');
      if (!res.headersSent) sendProblem(res, new Problem('internal-server-error'));
      else res.destroy();
    });
  };
  return Object.assign(handle, { close: () => (client.close(), eventAgent.destroy()) });
}
