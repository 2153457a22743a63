/**
 * The backend-for-frontend relay: /api/manager/<path>?<query> → the manager's /<path>?<query> (the custom server
 * hands every such call to this one static route, the path put aside: server/web/relay-path.ts routeToRelay),
 * signed with the signed-in user's keys (read from the sealed session cookie, server-side: app/lib/auth.ts
 * keysFromRequest, which remembers unsealed cookies, server/web/session-keys.ts) by the one signing client, over the
 * shared keep-alive pool (app/lib/manager.ts; in the dashboard's thread, the main thread's:
 * server/web/manager-port.ts). The manager's status, allow-listed headers and body come back as they are: a large
 * body (or one of unknown length) streamed as it arrives rather than buffered, a small one handed over whole. The
 * browser's cookies and headers other than a short allow-list never reach the manager.
 *
 * Server-Sent Events (a GET that accepts text/event-stream, e.g. /events/session) are streamed on connections of
 * their own so long-lived streams never take the shared pool's sockets.
 *
 * Keys never reach the browser, by construction rather than by reading what passes: every relayed request carries
 * the relay mark (server/http/relayed.ts), which the browser can neither set nor remove (only the allow-listed
 * headers below are forwarded), and the manager answers a marked request without any secret (no key field in JSON
 * answers or events; GraphQL documents selecting one refused). The path is put in its one spelling first
 * (server/web/relay-path.ts): the manager routes exactly what was decided on.
 *
 * Kept lean because every list and action of every page goes through it: nothing is computed per request that
 * can be computed once, bodies are not parsed, and Next's security headers (next.config.js) and compression apply
 * as to any other answer.
 */
import http from 'node:http';
import https from 'node:https';
import type { NextRequest } from 'next/server';
import { keysFromRequest } from '@/app/lib/auth';
import { managerClient, managerClientFor, problemResponse } from '@/app/lib/manager';
import { isSameOrigin } from '@/app/lib/origin';
import { BerthClient, type Credentials, type WireAnswer } from '@/server/client/client';
import { RELAYED_HEADER } from '@/server/http/relayed';
import { CLIENT_IP_HEADER, RELAY_PATH_HEADER } from '@/server/web/headers';
import { WHOLE_ANSWER_BYTES } from '@/server/web/manager-port';
import { canonicalRelayPath } from '@/server/web/relay-path';

/** Never prerendered or cached: every answer is the signed-in user's own. */
export const dynamic = 'force-dynamic';
/** node:http to the manager, and the keep-alive pool shared by every request. */
export const runtime = 'nodejs';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'x-method-override'];
const RETURNED_RESPONSE_HEADERS = [
  'content-type',
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
const EVENT_STREAM = 'text/event-stream';

const shared = globalThis as typeof globalThis & { __berthEventAgents?: Record<string, http.Agent> };
/** Connections for event streams only, unpooled: each stream holds its socket for as long as the page is open. */
function eventAgent(endpoint: URL): http.Agent {
  const agents = (shared.__berthEventAgents ??= {});
  agents[endpoint.protocol] ??= endpoint.protocol === 'https:' ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false });
  return agents[endpoint.protocol];
}

function unreachable(err: unknown): Response {
  console.error('dashboard relay: the manager is unreachable', err instanceof Error ? err.message : err);
  return problemResponse('service-unavailable', 'The manager could not be reached. Try again shortly.');
}

/*
 * Answers up to WHOLE_ANSWER_BYTES (by their Content-Length; the size the manager port sends in one message) are
 * read whole and handed to Next as one buffer: a Web stream costs more per answer than the copy it saves for the
 * small JSON answers most calls get (GET /v2 through the relay at concurrency 8 on the 2-core bench machine: ~145
 * req/s streamed, ~220 read whole). Larger answers, and answers of unknown length, are streamed.
 */

/** A small answer's body, whole: the one chunk it usually arrives in, or the chunks joined. */
function bodyOf(upstream: WireAnswer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    upstream.on('data', (chunk: Buffer) => chunks.push(chunk));
    upstream.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    upstream.once('error', reject);
  });
}

/**
 * The manager's answer body as a Web stream for the Response, chunk by chunk as it arrives (no copy), paused while
 * the browser is not reading; the browser going away ends the manager's answer.
 */
function streamOf(upstream: WireAnswer): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      upstream.on('data', (chunk: Buffer) => {
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 1) <= 0) upstream.pause();
      });
      upstream.once('end', () => {
        if (done) return;
        done = true;
        controller.close();
      });
      upstream.once('error', (err) => {
        if (done) return;
        done = true;
        controller.error(err);
      });
    },
    pull() {
      upstream.resume();
    },
    cancel() {
      done = true;
      upstream.destroy();
    },
  });
}

/** Streams an event stream from the manager to the browser, chunk by chunk, until either side goes away. */
async function relayEvents(req: NextRequest, keys: Credentials, uri: string, headers: Record<string, string>): Promise<Response> {
  const endpoint = managerClient().endpoint;
  const client = new BerthClient({ endpoint: endpoint.href, ...keys, agent: eventAgent(endpoint) });
  let upstream: WireAnswer;
  try {
    upstream = await client.open('GET', uri, { headers: { ...headers, accept: EVENT_STREAM } });
  } catch (err) {
    return unreachable(err);
  }
  const type = String(upstream.headers['content-type'] ?? '');
  if (upstream.statusCode !== 200 || !type.startsWith(EVENT_STREAM)) {
    // A refusal (problem+json): relayed as it is, like any other answer.
    return new Response(streamOf(upstream), {
      status: upstream.statusCode ?? 502,
      headers: { 'Content-Type': type || 'application/octet-stream', 'Cache-Control': 'no-store' },
    });
  }
  let open = true;
  const stop = () => {
    open = false;
    upstream.destroy();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A comment first, so the browser sees the stream open now rather than at the manager's first ping.
      controller.enqueue(new TextEncoder().encode(': relayed\n\n'));
      upstream.on('data', (chunk: Buffer) => {
        if (open) controller.enqueue(chunk);
      });
      upstream.on('end', () => {
        if (!open) return;
        open = false;
        controller.close();
      });
      upstream.on('error', () => {
        if (!open) return;
        open = false;
        controller.error(new Error('the manager closed the event stream'));
      });
      req.signal.addEventListener('abort', stop, { once: true });
    },
    cancel: stop,
  });
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': EVENT_STREAM, 'Cache-Control': 'no-store, no-transform', 'X-Accel-Buffering': 'no' },
  });
}

async function relay(req: NextRequest): Promise<Response> {
  const method = req.method;
  if (MUTATING.has(method) && !isSameOrigin(req)) {
    return problemResponse('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.');
  }
  const keys = await keysFromRequest(req);
  if (!keys) return problemResponse('auth-failed', 'Sign in to the dashboard first.');

  // The custom server put the manager's path aside (routeToRelay); it is relayed in its one spelling.
  const rawPath = req.headers.get(RELAY_PATH_HEADER);
  if (rawPath === null) return problemResponse('url-not-found', 'Name the manager API path after /api/manager/.');
  const canonical = canonicalRelayPath(rawPath);
  if ('refused' in canonical) return problemResponse('invalid-api-params', canonical.refused);
  const { path } = canonical;
  const { search } = req.nextUrl;
  // Set here, never taken from the browser: the manager leaves every secret out of its answer (server/http/relayed).
  const headers: Record<string, string> = { [RELAYED_HEADER]: '1' };
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers.get(name);
    if (value) headers[name] = value;
  }
  const clientIp = req.headers.get(CLIENT_IP_HEADER);
  if (clientIp) headers['X-Forwarded-For'] = clientIp;
  if (method === 'GET' && headers.accept?.includes(EVENT_STREAM)) return relayEvents(req, keys, path + search, headers);
  // The body is signed (its hash), so it is read whole; Buffer.from(ArrayBuffer) is a view, not a copy.
  const body = method === 'GET' || method === 'HEAD' ? undefined : Buffer.from(await req.arrayBuffer());

  let answer: WireAnswer;
  try {
    answer = await managerClientFor(keys).open(method, path + search, {
      rawBody: body?.length ? body : undefined,
      contentType: req.headers.get('content-type') ?? 'application/json',
      headers,
    });
  } catch (err) {
    return unreachable(err);
  }

  const status = answer.statusCode ?? 502;
  const returned: Record<string, string> = { 'Cache-Control': 'no-store' };
  for (const name of RETURNED_RESPONSE_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) returned[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (NO_BODY_STATUS.has(status) || method === 'HEAD') {
    answer.resume();
    return new Response(null, { status, headers: returned });
  }
  if (Number(answer.headers['content-length']) <= WHOLE_ANSWER_BYTES) {
    let whole: Buffer;
    try {
      whole = await bodyOf(answer);
    } catch (err) {
      return unreachable(err);
    }
    return new Response(whole as Uint8Array<ArrayBuffer>, { status, headers: returned });
  }
  return new Response(streamOf(answer), { status, headers: returned });
}

export { relay as GET, relay as POST, relay as PUT, relay as PATCH, relay as DELETE };
