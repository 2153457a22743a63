import { afterEach, describe, expect, it, vi } from 'vitest';
import { encode } from 'next-auth/jwt';
import { MAX_REMEMBERED, rememberedSessions, sessionKeys } from '../../server/web/session-keys';

const SECRET = 'test-nextauth-secret-0123456789abcdef';
const COOKIE = 'next-auth.session-token';

/** A session cookie sealed as next-auth seals it at sign-in. */
async function sealed(accessKey: string, options: { maxAge?: number; secret?: string } = {}): Promise<string> {
  return encode({ token: { email: `${accessKey}@example.com`, accessKey, secretKey: `secret-of-${accessKey}` }, secret: options.secret ?? SECRET, maxAge: options.maxAge ?? 3600 });
}

const read = (token: string, secret = SECRET) => sessionKeys({ cookie: `theme=dark; ${COOKIE}=${token}; other=1` }, secret);

/** The same cookie with one character of its ciphertext changed. */
function tampered(token: string): string {
  const parts = token.split('.');
  const body = parts[3];
  parts[3] = body.slice(0, 5) + (body[5] === 'A' ? 'B' : 'A') + body.slice(6);
  return parts.join('.');
}

describe('session keys from the sealed cookie', () => {
  afterEach(() => vi.useRealTimers());

  it("answers each cookie's own keys, however often both are read", async () => {
    const [alice, bob] = [await sealed('AKALICE'), await sealed('AKBOB')];
    for (let i = 0; i < 3; i++) {
      expect(await read(alice)).toEqual({ accessKey: 'AKALICE', secretKey: 'secret-of-AKALICE' });
      expect(await read(bob)).toEqual({ accessKey: 'AKBOB', secretKey: 'secret-of-AKBOB' });
    }
  });

  it('refuses an altered cookie even while the genuine one is remembered', async () => {
    const genuine = await sealed('AKTAMPER');
    expect(await read(genuine)).not.toBeNull();
    expect(await read(tampered(genuine))).toBeNull();
    expect(await read(`${genuine}x`)).toBeNull();
    expect(await read('not-a-jwe')).toBeNull();
    expect(await read(genuine)).toEqual({ accessKey: 'AKTAMPER', secretKey: 'secret-of-AKTAMPER' });
  });

  it('refuses no cookie, an expired cookie, and a cookie sealed with another secret', async () => {
    expect(await sessionKeys({ cookie: 'theme=dark' }, SECRET)).toBeNull();
    expect(await sessionKeys({}, SECRET)).toBeNull();
    expect(await read(await sealed('AKOLD', { maxAge: -60 }))).toBeNull();
    expect(await read(await sealed('AKOTHER', { secret: 'another-secret-0123456789abcdef0123' }))).toBeNull();
  });

  it('stops using a remembered cookie under another secret', async () => {
    const token = await sealed('AKROTATE');
    expect(await read(token)).not.toBeNull();
    expect(await read(token, 'rotated-secret-0123456789abcdef01234')).toBeNull();
  });

  it("stops using a remembered cookie once the cookie itself has expired", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const token = await sealed('AKSHORT', { maxAge: 30 });
    expect(await read(token)).not.toBeNull();
    // Past the expiry and next-auth's 15 s clock tolerance: unsealed again, and refused.
    vi.setSystemTime(Date.now() + 50_000);
    expect(await read(token)).toBeNull();
  });

  it('remembers a bounded number of cookies', async () => {
    for (let i = 0; i < MAX_REMEMBERED + 20; i++) expect(await read(await sealed(`AKMANY${i}`))).not.toBeNull();
    expect(rememberedSessions().cookies).toBeLessThanOrEqual(MAX_REMEMBERED);
    expect(rememberedSessions().headers).toBeLessThanOrEqual(MAX_REMEMBERED);
  });

  it('answers the same keys when other cookies beside the session change, and refuses once it is gone', async () => {
    const token = await sealed('AKBESIDE');
    const keys = { accessKey: 'AKBESIDE', secretKey: 'secret-of-AKBESIDE' };
    expect(await read(token)).toEqual(keys);
    expect(await sessionKeys({ cookie: `${COOKIE}=${token}; theme=light` }, SECRET)).toEqual(keys);
    expect(await sessionKeys({ cookie: `theme=dark; other=1` }, SECRET)).toBeNull();
    expect(await sessionKeys({ cookie: `theme=dark; ${COOKIE}=${tampered(token)}; other=1` }, SECRET)).toBeNull();
    expect(await read(token)).toEqual(keys);
  });
});
