/**
 * POST /api/auth-extra/signup: creates an account through the manager's /auth/signup when signup is enabled.
 * The manager answers with the new keypair; it stays here: the browser gets only `{ok: true}` and then signs in
 * with the password, like any user.
 */
import type { NextRequest } from 'next/server';
import { z } from 'zod';
import { problemResponse } from '@/app/lib/manager';
import { signupEnabled } from '@/components/auth/signup-flag';
import { forwardUnsigned, json, readBody } from '../forward';

const input = z.object({
  domain: z.string().min(1).max(256),
  email: z.string().min(3).max(256),
  password: z.string().min(1).max(1024),
  username: z.string().min(1).max(64).optional(),
  full_name: z.string().max(64).optional(),
});

export async function POST(req: NextRequest): Promise<Response> {
  if (!signupEnabled()) return problemResponse('generic-forbidden', 'Signup is disabled on this server.');
  const read = await readBody(req, input);
  if ('refusal' in read) return read.refusal;
  const sent = await forwardUnsigned<unknown>(req, '/auth/signup', read.body);
  if ('refusal' in sent) return sent.refusal;
  return json({ ok: true });
}
