/**
 * The storage relay: /api/storage/upload and /api/storage/download → the manager's /storage/upload and
 * /storage/download, so the browser never needs to reach the manager's port. These endpoints are authorized by
 * the transfer token in the query (from request-upload / request-download through the signed /api/manager relay),
 * so nothing is signed here and no key is involved.
 *
 * Bodies stream both ways (a tus PATCH or a zipped directory can be gigabytes): the request body is piped to the
 * manager as it arrives and the answer is handed back as a stream. Writes (PATCH, DELETE) must come from the
 * dashboard's own pages (Origin check), like every mutating call to the dashboard.
 */
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { NextRequest } from 'next/server';
import { problemResponse } from '@/app/lib/manager';
import { isSameOrigin } from '@/app/lib/origin';
import { RELAYED_HEADER } from '@/server/http/relayed';

export const dynamic = 'force-dynamic';

const ENDPOINTS = new Set(['upload', 'download']);
const WRITES = new Set(['PATCH', 'DELETE']);
const FORWARDED_REQUEST_HEADERS = [
  'tus-resumable',
  'upload-offset',
  'upload-length',
  'upload-checksum',
  'content-type',
  'content-length',
  'range',
  'if-range',
  'if-none-match',
  'if-modified-since',
  'access-control-request-method',
  'access-control-request-headers',
];
const RETURNED_RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'content-disposition',
  'content-range',
  'accept-ranges',
  'etag',
  'last-modified',
  'upload-offset',
  'upload-length',
  'upload-expires',
  'upload-metadata',
  'tus-resumable',
  'tus-version',
  'tus-extension',
  'tus-max-size',
  'allow',
  'retry-after',
];
const NO_BODY_STATUS = new Set([101, 204, 205, 304]);

function managerEndpoint(): URL {
  const endpoint = process.env.BERTH_MANAGER_URL;
  if (!endpoint) throw new Error('BERTH_MANAGER_URL is not set: the dashboard must run inside Berth (npm start).');
  return new URL(endpoint);
}

function open(target: URL, method: string, headers: Record<string, string>, body: Readable | null, signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request(target, { method, headers, signal }, resolve);
    request.on('error', reject);
    if (body) {
      body.on('error', (err) => request.destroy(err));
      body.pipe(request);
    } else {
      request.end();
    }
  });
}

async function relay(req: NextRequest, context: { params: Promise<{ path: string[] }> }): Promise<Response> {
  const { path } = await context.params;
  if (path.length !== 1 || !ENDPOINTS.has(path[0])) return problemResponse('url-not-found', 'No storage endpoint here: use /api/storage/upload or /api/storage/download.');
  if (WRITES.has(req.method) && !isSameOrigin(req)) return problemResponse('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.');

  const endpoint = managerEndpoint();
  const target = new URL(`/storage/${path[0]}${new URL(req.url).search}`, endpoint);
  // The relay mark, like every request relayed for a browser (server/http/relayed.ts).
  const headers: Record<string, string> = { [RELAYED_HEADER]: '1' };
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const hasBody = req.body !== null && req.method !== 'GET' && req.method !== 'HEAD';
  const body = hasBody ? Readable.fromWeb(req.body as import('node:stream/web').ReadableStream<Uint8Array>) : null;
  if (!hasBody) delete headers['content-length'];

  let upstream: http.IncomingMessage;
  try {
    upstream = await open(target, req.method, headers, body, req.signal);
  } catch (err) {
    if (req.signal.aborted) return new Response(null, { status: 499 });
    console.error('dashboard storage relay: the manager is unreachable', err instanceof Error ? err.message : err);
    return problemResponse('service-unavailable', 'The manager could not be reached. Try again shortly.');
  }

  const returned = new Headers({ 'Cache-Control': 'no-store' });
  for (const name of RETURNED_RESPONSE_HEADERS) {
    const value = upstream.headers[name];
    if (value !== undefined) returned.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const status = upstream.statusCode ?? 502;
  if (NO_BODY_STATUS.has(status) || req.method === 'HEAD') {
    upstream.resume();
    return new Response(null, { status, headers: returned });
  }
  req.signal.addEventListener('abort', () => upstream.destroy(), { once: true });
  return new Response(Readable.toWeb(upstream) as ReadableStream<Uint8Array>, { status, headers: returned });
}

export { relay as GET, relay as HEAD, relay as PATCH, relay as DELETE, relay as OPTIONS };
