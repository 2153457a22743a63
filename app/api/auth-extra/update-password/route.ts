/**
 * POST /api/auth-extra/update-password: the expired-password change for a visitor whose login was refused with
 * `password-expired`. No session exists yet, so the call is unsigned; it forwards only to the manager's
 * /auth/update-password-no-auth, which checks the current password itself.
 */
import type { NextRequest } from 'next/server';
import { z } from 'zod';
import { forwardUnsigned, json, readBody } from '../forward';

const input = z.object({
  domain: z.string().min(1).max(256),
  username: z.string().min(1).max(256),
  current_password: z.string().min(1).max(1024),
  new_password: z.string().min(1).max(1024),
});

export async function POST(req: NextRequest): Promise<Response> {
  const read = await readBody(req, input);
  if ('refusal' in read) return read.refusal;
  const sent = await forwardUnsigned<{ password_changed_at?: string }>(req, '/auth/update-password-no-auth', read.body);
  if ('refusal' in sent) return sent.refusal;
  return json({ password_changed_at: sent.answer.password_changed_at ?? null });
}
