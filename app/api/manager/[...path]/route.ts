/**
 * The backend-for-frontend relay: /api/manager/<path>?<query> → the manager's /<path>?<query>, signed with the
 * signed-in user's keys (read from the sealed session cookie, server-side) by the one signing client. The
 * manager's status, content type and body come back as they are. The browser's cookies and headers other than
 * a short allow-list never reach the manager.
 */
import type { NextRequest } from 'next/server';
import { keysFromRequest } from '@/app/lib/auth';
import { managerClientFor, problemResponse } from '@/app/lib/manager';
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
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.from(await req.arrayBuffer());

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
