/**
 * PATCH /api/ssh-keypair: generates a new SSH keypair for the signed-in user (the manager's PATCH /auth/ssh-keypair)
 * and hands the page the private key, the one time it is shown, for the user to download. Through the general
 * relay the manager leaves every private key out (server/http/relayed.ts); this handler beside it is the one
 * deliberate way a new SSH private key reaches the page. It never carries the user's access or secret key.
 */
import type { NextRequest } from 'next/server';
import { keysFromRequest } from '@/app/lib/auth';
import { managerClientFor, problemResponse } from '@/app/lib/manager';
import { isSameOrigin } from '@/app/lib/origin';
import { ApiError } from '@/server/client/client';

export const dynamic = 'force-dynamic';

interface GeneratedPair {
  ssh_public_key: string;
  ssh_private_key: string;
}

export async function PATCH(req: NextRequest): Promise<Response> {
  if (!isSameOrigin(req)) return problemResponse('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.');
  const keys = await keysFromRequest(req);
  if (!keys) return problemResponse('auth-failed', 'Sign in to the dashboard first.');
  let pair: GeneratedPair;
  try {
    pair = await managerClientFor(keys).call<GeneratedPair>('PATCH', '/auth/ssh-keypair');
  } catch (err) {
    if (err instanceof ApiError) {
      return new Response(JSON.stringify(err.problem), { status: err.status, headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' } });
    }
    console.error('dashboard ssh-keypair: the manager is unreachable', err instanceof Error ? err.message : err);
    return problemResponse('service-unavailable', 'The manager could not be reached. Try again shortly.');
  }
  const body = { ssh_public_key: pair.ssh_public_key, ssh_private_key: pair.ssh_private_key };
  return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
}
