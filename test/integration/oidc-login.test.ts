/**
 * POST /auth/oidc/authorize against a real OpenID provider (oidc-provider, in-process): the manager discovers the
 * provider, checks the ID token's signature against the provider's published keys, its issuer, audience, expiry
 * and age, and answers with the user's keypair, which then signs requests like any other. Tokens are signed here
 * with the provider's own key (and a stranger's), so each check can be tried on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth } from '../helpers/berth';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider';
import { readOidcSettings } from '../../server/config/env';
import { BerthClient } from '../../server/client/client';

let t: TestBerth;
let provider: TestOidcProvider;

const authorize = (body: unknown) => t.anonymous.request('POST', '/auth/oidc/authorize', { body });
const claims = (email: string, extra: Record<string, unknown> = {}) => ({ sub: `sub-${email}`, email, email_verified: true, name: 'Test Person', ...extra });

beforeAll(async () => {
  provider = await startOidcProvider({});
  provider.registerClient('http://127.0.0.1:9');
  t = await startTestBerth({ oidc: readOidcSettings(provider.env({ BERTH_OIDC_NAME: 'Acme ID' })) });
});
afterAll(async () => {
  await t?.stop();
  await provider?.stop();
});

describe('POST /auth/oidc/authorize', () => {
  it("answers a valid ID token with the user's keypair, which signs requests", async () => {
    const res = await authorize({ id_token: await provider.signIdToken(claims('valid@example.com')) });
    expect(res.status).toBe(200);
    const { data } = res.json();
    expect(data).toMatchObject({ role: 'user', status: 'active', email: 'valid@example.com', full_name: 'Test Person' });
    const client = new BerthClient({ endpoint: t.url, accessKey: data.access_key, secretKey: data.secret_key });
    expect(await client.call('GET', '/auth/test', { query: { echo: 'hi' } })).toEqual({ authorized: 'yes', echo: 'hi' });
    client.close();
    // The same provider account again: the same user and keypair.
    const again = (await authorize({ id_token: await provider.signIdToken(claims('valid@example.com')) })).json();
    expect(again.data.access_key).toBe(data.access_key);
  });

  it('takes several audiences only when the token is authorized for this client (azp)', async () => {
    const both = [provider.clientId, 'another-client'];
    expect((await authorize({ id_token: await provider.signIdToken(claims('azp@example.com', { aud: both, azp: provider.clientId })) })).status).toBe(200);
    const res = await authorize({ id_token: await provider.signIdToken(claims('azp2@example.com', { aud: both })) });
    expect(res.status).toBe(401);
    expect(res.json().detail).toContain('azp');
  });

  it.each([
    ['signed by another key', async () => provider.signIdToken(claims('k@example.com'), { signer: 'stranger' })],
    ['from another issuer', async () => provider.signIdToken(claims('i@example.com', { iss: 'https://evil.example' }))],
    ['for another client', async () => provider.signIdToken(claims('a@example.com', { aud: 'another-client' }))],
    ['expired', async () => provider.signIdToken(claims('e@example.com', { iat: Math.floor(Date.now() / 1000) - 600, exp: Math.floor(Date.now() / 1000) - 120 }))],
    ['issued an hour ago', async () => provider.signIdToken(claims('o@example.com', { iat: Math.floor(Date.now() / 1000) - 3600, exp: Math.floor(Date.now() / 1000) + 3600 }))],
    ['without a subject', async () => provider.signIdToken({ email: 's@example.com', email_verified: true })],
    ['not a JWT', async () => 'not.a.jwt'],
    ['altered after signing', async () => {
      const [header, , signature] = (await provider.signIdToken(claims('x@example.com'))).split('.');
      const forged = Buffer.from(JSON.stringify({ ...claims('x@example.com', { email: 'admin@berth.local' }), iss: provider.issuer, aud: provider.clientId, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 300 })).toString('base64url');
      return `${header}.${forged}.${signature}`;
    }],
  ])('refuses a token %s with 401 and creates no user', async (_, token) => {
    const before = await t.app.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const res = await authorize({ id_token: await token() });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().type).toContain('auth-failed');
    const after = await t.app.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('refuses an unverified email with 401 and says why', async () => {
    const res = await authorize({ id_token: await provider.signIdToken(claims('unverified@example.com', { email_verified: false })) });
    expect(res.status).toBe(401);
    expect(res.json().detail).toContain('not verified at Acme ID');
  });

  it('refuses bad input with 400', async () => {
    for (const body of [{}, { id_token: '' }, { id_token: 42 }, { id_token: 'x'.repeat(20_000) }]) {
      const res = await authorize(body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
  });

  it('answers 503 with a clear message when the provider cannot be reached', async () => {
    const oidc = t.app.settings.oidc!;
    // A provider the manager has not discovered yet, on a port where nothing listens.
    t.app.settings.oidc = { ...oidc, issuer: 'http://127.0.0.2:9' };
    try {
      const res = await authorize({ id_token: await provider.signIdToken(claims('down@example.com')) });
      expect(res.status).toBe(503);
      expect(res.json().detail).toContain('Acme ID (the single sign-on provider) could not be reached');
    } finally {
      t.app.settings.oidc = oidc;
    }
  });

  it('answers 403 on a server without single sign-on', async () => {
    const oidc = t.app.settings.oidc;
    t.app.settings.oidc = undefined;
    try {
      const res = await authorize({ id_token: await provider.signIdToken(claims('off@example.com')) });
      expect(res.status).toBe(403);
      expect(res.json().detail).toContain('not configured');
    } finally {
      t.app.settings.oidc = oidc;
    }
  });
});
