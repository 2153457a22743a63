/**
 * Service access tokens (POST /services/{id}/token, CONTRACT §13): HS256 JWTs signed with the app proxy's secret
 * (the proxy verifies them), bound to one service and expiring at `valid_until`, or `duration` from now. Callers
 * of the service's URL send one as `Authorization: BackendAI <token>` or `Bearer <token>`. Issued tokens are
 * recorded (id, service, expiry; never the token) and go with the service.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import type { Endpoint } from '../db/schema';
import { badRequest } from '../http/problem';
import { appProxySecret } from '../apps/tokens';
import { parseDuration } from '../util/duration';

const TOKEN_TYPE = 'berth-service';

export async function issueServiceToken(app: App, caller: Principal, endpoint: Endpoint, input: { duration?: string | null; valid_until?: number | null }): Promise<{ token: string }> {
  let expires: number;
  if (input.valid_until !== undefined && input.valid_until !== null) {
    expires = Math.floor(input.valid_until);
  } else if (input.duration !== undefined && input.duration !== null) {
    const seconds = /^\s*\d+(\.\d+)?\s*$/.test(input.duration) ? null : parseDuration(input.duration);
    if (seconds === null) throw badRequest('duration must use the units y, d, h, m and s, e.g. "30d" or "1h30m".', { duration: 'invalid duration' });
    expires = Math.floor(Date.now() / 1000 + seconds);
  } else {
    throw badRequest('Give duration or valid_until.', { duration: 'duration or valid_until is required' });
  }
  if (!Number.isFinite(expires) || expires <= Math.floor(Date.now() / 1000)) throw badRequest('The token would expire in the past.', { valid_until: 'in the past' });
  if (expires > 253402300799) throw badRequest('The expiry is too far in the future.', { valid_until: 'too far' });
  const id = randomUUID();
  const token = await new SignJWT({ typ: TOKEN_TYPE })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(endpoint.id)
    .setJti(id)
    .setIssuedAt()
    .setExpirationTime(expires)
    .sign(appProxySecret(app));
  await app.db.insertInto('endpoint_tokens').values({ id, endpoint_id: endpoint.id, created_user: caller.userId, valid_until: new Date(expires * 1000) }).execute();
  return { token };
}

/** The expiry (epoch seconds) of a valid, unexpired token of this service; null for any other token. */
export async function verifyServiceToken(secret: Uint8Array, token: string, endpointId: string): Promise<number | null> {
  try {
    const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'], subject: endpointId });
    return payload.typ === TOKEN_TYPE && typeof payload.exp === 'number' ? payload.exp : null;
  } catch {
    return null;
  }
}

/** The token of an `Authorization: BackendAI <token>` or `Bearer <token>` header, if any. */
export function tokenFromHeader(header: string | undefined): string | null {
  const match = /^\s*(?:BackendAI|Bearer)\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}
