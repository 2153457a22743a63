/**
 * Opening an in-session app (CONTRACT §11), for the session page's app buttons: POST /sessions/<id>/apps/<app>
 * starts the app with the user's keys (start-service), asks the app proxy for the one-time sign-in address
 * (`/v2/proxy/<token>/<session>/add`) and answers `{url}`, which the page opens in a new tab. The exchange with
 * the app proxy happens here because the proxy lives on another origin and answers without CORS headers; the
 * token goes no further than this handler and the returned address, which the app proxy consumes once.
 */
import type { NextRequest } from 'next/server';
import { keysFromRequest } from '@/app/lib/auth';
import { managerClientFor, problemResponse } from '@/app/lib/manager';
import { isSameOrigin } from '@/app/lib/origin';

const ADD_TIMEOUT_MS = 15_000;

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
}

function httpUrl(value: unknown): URL | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** A manager refusal, relayed as it came. */
function relayed(status: number, contentType: string | string[] | undefined, body: Buffer): Response {
  return new Response(new Uint8Array(body), { status, headers: { 'Content-Type': String(contentType ?? 'application/problem+json'), 'Cache-Control': 'no-store' } });
}

export async function POST(req: NextRequest, { params }: { params: Promise<{ id: string; app: string }> }): Promise<Response> {
  if (!isSameOrigin(req)) return problemResponse('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.');
  const keys = await keysFromRequest(req);
  if (!keys) return problemResponse('auth-failed', 'Sign in to the dashboard first.');
  const { id, app } = await params;
  const client = managerClientFor(keys);
  const session = `/session/${encodeURIComponent(id)}`;

  let sessionId: string;
  let started: { token?: unknown; wsproxy_addr?: unknown };
  try {
    const info = await client.request('GET', session);
    if (!info.ok) return relayed(info.status, info.headers['content-type'], info.body);
    sessionId = String(info.json<{ sessionId: string }>().sessionId);
    const answer = await client.request('POST', `${session}/start-service`, { body: { app } });
    if (!answer.ok) return relayed(answer.status, answer.headers['content-type'], answer.body);
    started = answer.json();
  } catch (err) {
    console.error('dashboard app launch: the manager is unreachable', err instanceof Error ? err.message : err);
    return problemResponse('service-unavailable', 'The manager could not be reached. Try again shortly.');
  }

  const proxy = httpUrl(started.wsproxy_addr);
  if (!proxy || typeof started.token !== 'string') return problemResponse('internal-server-error', 'The manager answered start-service without an app proxy address.');
  const add = new URL(`${proxy.href.replace(/\/$/, '')}/v2/proxy/${encodeURIComponent(started.token)}/${encodeURIComponent(sessionId)}/add`);
  add.searchParams.set('app', app);
  add.searchParams.set('protocol', 'http');
  try {
    const answer = await fetch(add, { redirect: 'manual', cache: 'no-store', signal: AbortSignal.timeout(ADD_TIMEOUT_MS) });
    const body: unknown = await answer.json().catch(() => null);
    const url = httpUrl((body as { url?: unknown } | null)?.url);
    if (!answer.ok || !url) {
      const detail = (body as { detail?: unknown } | null)?.detail;
      return problemResponse('bad-gateway', typeof detail === 'string' ? `The app proxy refused to open the app: ${detail}` : 'The app proxy did not answer with an address for the app.');
    }
    return json({ url: url.href });
  } catch (err) {
    console.error('dashboard app launch: the app proxy is unreachable', err instanceof Error ? err.message : err);
    return problemResponse('bad-gateway', 'The app proxy could not be reached from the dashboard. Try again shortly.');
  }
}
