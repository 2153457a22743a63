/**
 * The app proxy's cache of verified service tokens (server/appproxy/verified-tokens.ts) over the real verifier: a
 * token is verified once, then answered from the cache until its expiry; a token of another service, a forged one
 * and an expired one are refused.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VerifiedServiceTokens } from '../../server/appproxy/verified-tokens';
import { verifyServiceToken } from '../../server/services/tokens';

const secret = randomBytes(32);
const SERVICE = '11111111-2222-4333-8444-555555555555';
const OTHER = '99999999-2222-4333-8444-555555555555';

function token(subject: string, exp: number, key: Uint8Array = secret) {
  return new SignJWT({ typ: 'berth-service' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(subject).setIssuedAt().setExpirationTime(exp).sign(key);
}

afterEach(() => vi.useRealTimers());

describe('VerifiedServiceTokens', () => {
  it('verifies a token once and answers later uses from the cache', async () => {
    let verifications = 0;
    const cache = new VerifiedServiceTokens((t, id) => (verifications++, verifyServiceToken(secret, t, id)));
    const good = await token(SERVICE, Math.floor(Date.now() / 1000) + 3600);
    expect(await cache.valid(good, SERVICE)).toBe(true);
    expect(await cache.valid(good, SERVICE)).toBe(true);
    expect(verifications).toBe(1);
    // The same token for another service is a different question, and the answer is no.
    expect(await cache.valid(good, OTHER)).toBe(false);
    expect(await cache.valid(good, OTHER)).toBe(false);
    expect(verifications).toBe(3);
  });

  it('refuses forged and expired tokens, and a cached token once its expiry passes', async () => {
    const cache = new VerifiedServiceTokens((t, id) => verifyServiceToken(secret, t, id));
    const now = Math.floor(Date.now() / 1000);
    expect(await cache.valid(await token(SERVICE, now + 3600, randomBytes(32)), SERVICE)).toBe(false);
    expect(await cache.valid(await token(SERVICE, now - 10), SERVICE)).toBe(false);
    const shortLived = await token(SERVICE, now + 60);
    expect(await cache.valid(shortLived, SERVICE)).toBe(true);
    vi.useFakeTimers({ now: (now + 61) * 1000 });
    expect(await cache.valid(shortLived, SERVICE)).toBe(false);
  });
});
