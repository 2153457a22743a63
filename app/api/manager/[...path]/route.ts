/**
 * The backend-for-frontend relay: /api/manager/<path>?<query> → the manager's /<path>?<query>, signed with the
 * signed-in user's keys (read from the sealed session cookie, server-side) by the one signing client. The
 * manager's status, content type and body come back as they are. The browser's cookies and headers other than
 * a short allow-list never reach the manager.
 *
 * Server-Sent Events (a GET that accepts text/event-stream, e.g. /events/session) are streamed instead of
 * buffered, on connections of their own so long-lived streams never take the shared pool's sockets, and every
 * event's owner access key is removed on the way: the browser never receives a key.
 */
import http from 'node:http';
import https from 'node:https';
import type { NextRequest } from 'next/server';
import { keysFromRequest } from '@/app/lib/auth';
import { managerClient, managerClientFor, problemResponse } from '@/app/lib/manager';
import { BerthClient, type Credentials } from '@/server/client/client';
import { isSameOrigin } from '@/app/lib/origin';
import { CLIENT_IP_HEADER } from '@/server/web/headers';

const PREFIX = '/api/manager';
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
/** Event payload fields that name a keypair; dropped from every relayed event. */
const KEY_FIELDS = ['ownerAccessKey', 'owner_access_key', 'accessKey', 'access_key'];
/** GraphQL documents that select a key field are refused: a script in the page must not be able to read keys. */
const GRAPHQL_PATHS = new Set(['/admin/gql', '/admin/graphql', '//gql', '//graphql']);
const KEY_SELECTION = /\b(secret_key|access_key|main_access_key|ssh_private_key)\b/;

const shared = globalThis as typeof globalThis & { __berthEventAgents?: Record<string, http.Agent> };
/** Connections for event streams only, unpooled: each stream holds its socket for as long as the page is open. */
function eventAgent(endpoint: URL): http.Agent {
  const agents = (shared.__berthEventAgents ??= {});
  agents[endpoint.protocol] ??= endpoint.protocol === 'https:' ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false });
  return agents[endpoint.protocol];
}

/** One `data:` line with the key fields removed from its JSON object; any other line as it is. */
function redactLine(line: string): string {
  if (!line.startsWith('data:')) return line;
  try {
    const value: unknown = JSON.parse(line.slice(5));
    if (!value || typeof value !== 'object' || Array.isArray(value)) return line;
    const kept = Object.fromEntries(Object.entries(value).filter(([key]) => !KEY_FIELDS.includes(key)));
    return `data: ${JSON.stringify(kept)}`;
  } catch {
    return line;
  }
}

/** Streams an event stream from the manager to the browser, line by line, until either side goes away. */
async function relayEvents(req: NextRequest, keys: Credentials, uri: string, headers: Record<string, string>): Promise<Response> {
  const endpoint = managerClient().endpoint;
  const client = new BerthClient({ endpoint: endpoint.href, ...keys, agent: eventAgent(endpoint) });
  let upstream: http.IncomingMessage;
  try {
    upstream = await client.open('GET', uri, { headers: { ...headers, accept: EVENT_STREAM } });
  } catch (err) {
    console.error('dashboard relay: the manager is unreachable', err instanceof Error ? err.message : err);
    return problemResponse('service-unavailable', 'The manager could not be reached. Try again shortly.');
  }
  const type = String(upstream.headers['content-type'] ?? '');
  if (upstream.statusCode !== 200 || !type.startsWith(EVENT_STREAM)) {
    // A refusal (problem+json): relayed whole, like any other answer.
    const chunks: Buffer[] = [];
    for await (const chunk of upstream) chunks.push(chunk as Buffer);
    return new Response(new Uint8Array(Buffer.concat(chunks)), {
      status: upstream.statusCode ?? 502,
      headers: { 'Content-Type': type || 'application/octet-stream', 'Cache-Control': 'no-store' },
    });
  }
  const encoder = new TextEncoder();
  let pending = '';
  let open = true;
  const stop = () => {
    open = false;
    upstream.destroy();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A comment first, so the browser sees the stream open now rather than at the manager's first ping.
      controller.enqueue(encoder.encode(': relayed\n\n'));
      upstream.setEncoding('utf8');
      upstream.on('data', (chunk: string) => {
        if (!open) return;
        pending += chunk;
        const end = pending.lastIndexOf('\n');
        if (end < 0) return;
        const complete = pending.slice(0, end + 1);
        pending = pending.slice(end + 1);
        controller.enqueue(encoder.encode(complete.split('\n').map(redactLine).join('\n')));
      });
      upstream.on('end', () => {
        if (!open) return;
        open = false;
        if (pending) controller.enqueue(encoder.encode(redactLine(pending)));
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
  if (MUTATING.has(req.method) && !isSameOrigin(req)) {
    return problemResponse('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.');
  }
  const keys = await keysFromRequest(req);
  if (!keys) return problemResponse('auth-failed', 'Sign in to the dashboard first.');

  const url = new URL(req.url);
  const path = url.pathname.slice(PREFIX.length) || '/';
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers.get(name);
    if (value) headers[name] = value;
  }
  const clientIp = req.headers.get(CLIENT_IP_HEADER);
  if (clientIp) headers['X-Forwarded-For'] = clientIp;
  if (req.method === 'GET' && (req.headers.get('accept') ?? '').includes(EVENT_STREAM)) return relayEvents(req, keys, path + url.search, headers);
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.from(await req.arrayBuffer());
  if (body && GRAPHQL_PATHS.has(path) && KEY_SELECTION.test(body.toString('utf8'))) {
    return problemResponse('generic-forbidden', 'Keys are not available through the dashboard.');
  }

  let answer;
  try {
    answer = await managerClientFor(keys).request(req.method, path + url.search, {
      rawBody: body?.length ? body : undefined,
      contentType: req.headers.get('content-type') ?? 'application/json',
      headers,
    });
  } catch (err) {
    console.error('dashboard relay: the manager is unreachable', err instanceof Error ? err.message : err);
    return problemResponse('service-unavailable', 'The manager could not be reached. Try again shortly.');
  }

  const returned = new Headers({ 'Cache-Control': 'no-store' });
  for (const name of RETURNED_RESPONSE_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) returned.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const hasBody = !NO_BODY_STATUS.has(answer.status) && req.method !== 'HEAD';
  return new Response(hasBody ? new Uint8Array(answer.body) : null, { status: answer.status, headers: returned });
}

export { relay as GET, relay as POST, relay as PUT, relay as PATCH, relay as DELETE };
