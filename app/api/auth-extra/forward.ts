/**
 * Server-side only: what the dashboard's two unsigned account routes share (the expired-password change and
 * signup). They need no session, so they are open to anyone who can reach the dashboard; each one checks the
 * Origin like the signed relay does, takes a small JSON body of known fields only, and forwards exactly one manager
 * call, unsigned, returning the manager's problem on a refusal.
 */
import type { NextRequest } from 'next/server';
import type { z } from 'zod';
import { ApiError } from '@/server/client/client';
import { CLIENT_IP_HEADER } from '@/server/web/headers';
import { managerClient, problemResponse } from '@/app/lib/manager';
import { isSameOrigin } from '@/app/lib/origin';

const MAX_BODY_BYTES = 16 * 1024;

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
}

/** The request's JSON body checked against `schema`, or the refusal to send back. */
export async function readBody<T>(req: NextRequest, schema: z.ZodType<T>): Promise<{ body: T } | { refusal: Response }> {
  if (!isSameOrigin(req)) {
    return { refusal: problemResponse('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.') };
  }
  if (!(req.headers.get('content-type') ?? '').includes('application/json')) {
    return { refusal: problemResponse('unsupported-media-type', 'Send the form as application/json.') };
  }
  const text = await req.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) return { refusal: problemResponse('payload-too-large', 'The form is too large.') };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { refusal: problemResponse('invalid-api-params', 'The request body is not valid JSON.') };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'body';
    return { refusal: problemResponse('invalid-api-params', `${field}: ${issue?.message ?? 'invalid'}`) };
  }
  return { body: parsed.data };
}

/**
 * Sends one unsigned POST to the manager. Success → the manager's JSON answer for the route to pick from;
 * a manager refusal → its problem+json with its status, unchanged.
 */
export async function forwardUnsigned<T>(req: NextRequest, path: string, body: unknown): Promise<{ answer: T } | { refusal: Response }> {
  const headers: Record<string, string> = {};
  const clientIp = req.headers.get(CLIENT_IP_HEADER);
  if (clientIp) headers['X-Forwarded-For'] = clientIp;
  try {
    return { answer: await managerClient().call<T>('POST', path, { body, signed: false, headers }) };
  } catch (err) {
    if (err instanceof ApiError) {
      return {
        refusal: new Response(JSON.stringify(err.problem), {
          status: err.status,
          headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' },
        }),
      };
    }
    console.error(`dashboard ${path}: the manager is unreachable`, err instanceof Error ? err.message : err);
    return { refusal: problemResponse('service-unavailable', 'The manager could not be reached. Try again shortly.') };
  }
}
