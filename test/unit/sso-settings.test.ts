/**
 * The small pure parts of single sign-on: reading BERTH_OIDC_* and BERTH_PASSWORD_LOGIN (bad values refused at
 * start), where a callbackUrl may send the browser (never to another origin), and the logout's cookies and
 * end-session URL.
 */
import { describe, expect, it } from 'vitest';
import { readOidcSettings, readPasswordLogin, readSettings } from '../../server/config/env';
import { safeCallbackUrl } from '../../server/web/redirects';
import { clearedSessionCookies, endSessionUrl, sessionCookieName } from '../../server/web/logout';
import { wellKnownUrl } from '../../server/auth/oidc-discovery';

const BASE = { BERTH_OIDC_ISSUER: 'https://kc.example.com/realms/berth/', BERTH_OIDC_CLIENT_ID: 'berth', BERTH_OIDC_CLIENT_SECRET: 's3cret' };

describe('BERTH_OIDC_* settings', () => {
  it('are absent without an issuer', () => {
    expect(readOidcSettings({})).toBeUndefined();
    expect(readSettings({}).oidc).toBeUndefined();
    expect(readSettings({}).passwordLogin).toBe(true);
  });

  it('have defaults for everything but the issuer and the client', () => {
    expect(readOidcSettings(BASE)).toEqual({
      issuer: 'https://kc.example.com/realms/berth',
      clientId: 'berth',
      clientSecret: 's3cret',
      name: 'SSO',
      scopes: 'openid email profile',
      domain: 'default',
      project: 'default',
      groupsClaim: 'groups',
      adminGroup: undefined,
      groupProjects: {},
    });
  });

  it('read every variable the issue names', () => {
    const oidc = readOidcSettings({
      ...BASE,
      BERTH_OIDC_NAME: 'Keycloak',
      BERTH_OIDC_SCOPES: 'email profile groups',
      BERTH_OIDC_DOMAIN: 'research',
      BERTH_OIDC_PROJECT: 'lab',
      BERTH_OIDC_ADMIN_GROUP: 'berth-admins',
      BERTH_OIDC_GROUPS_CLAIM: 'roles',
      BERTH_OIDC_GROUP_PROJECTS: 'ml-team=ml, vision = cv, ml-team=shared',
    });
    expect(oidc).toMatchObject({
      name: 'Keycloak',
      // `openid` is always asked for.
      scopes: 'openid email profile groups',
      domain: 'research',
      project: 'lab',
      adminGroup: 'berth-admins',
      groupsClaim: 'roles',
      groupProjects: { 'ml-team': ['ml', 'shared'], vision: ['cv'] },
    });
  });

  it.each([
    [{ ...BASE, BERTH_OIDC_ISSUER: 'not a url' }, 'invalid BERTH_OIDC_ISSUER'],
    [{ ...BASE, BERTH_OIDC_ISSUER: 'ftp://kc.example.com' }, 'invalid BERTH_OIDC_ISSUER'],
    [{ ...BASE, BERTH_OIDC_ISSUER: 'https://kc.example.com/?x=1' }, 'invalid BERTH_OIDC_ISSUER'],
    [{ ...BASE, BERTH_OIDC_CLIENT_ID: '' }, 'needs BERTH_OIDC_CLIENT_ID'],
    [{ ...BASE, BERTH_OIDC_CLIENT_SECRET: undefined }, 'BERTH_OIDC_CLIENT_SECRET'],
    [{ ...BASE, BERTH_OIDC_GROUP_PROJECTS: 'ml-team' }, 'invalid BERTH_OIDC_GROUP_PROJECTS entry: ml-team'],
    [{ ...BASE, BERTH_OIDC_GROUP_PROJECTS: 'a=b=c' }, 'invalid BERTH_OIDC_GROUP_PROJECTS entry'],
    [{ ...BASE, BERTH_OIDC_GROUP_PROJECTS: '=ml' }, 'invalid BERTH_OIDC_GROUP_PROJECTS entry'],
  ])('refuse a bad value at start (%#)', (env, message) => {
    expect(() => readSettings(env)).toThrow(message);
  });
});

describe('BERTH_PASSWORD_LOGIN', () => {
  it('is on unless turned off', () => {
    expect(readPasswordLogin({})).toBe(true);
    expect(readPasswordLogin({ BERTH_PASSWORD_LOGIN: 'TRUE' })).toBe(true);
    expect(readPasswordLogin({ ...BASE, BERTH_PASSWORD_LOGIN: 'false' })).toBe(false);
    expect(readPasswordLogin({ ...BASE, BERTH_PASSWORD_LOGIN: '0' })).toBe(false);
  });

  it('may be off only with single sign-on, and must be a yes or a no', () => {
    expect(() => readPasswordLogin({ BERTH_PASSWORD_LOGIN: 'false' })).toThrow('needs single sign-on');
    expect(() => readPasswordLogin({ ...BASE, BERTH_PASSWORD_LOGIN: 'maybe' })).toThrow('invalid BERTH_PASSWORD_LOGIN');
  });
});

describe('callbackUrl', () => {
  const base = 'http://127.0.0.1:3000';
  it.each([
    ['/', 'http://127.0.0.1:3000/'],
    ['/sessions?tab=2', 'http://127.0.0.1:3000/sessions?tab=2'],
    ['http://127.0.0.1:3000/folders', 'http://127.0.0.1:3000/folders'],
  ])('keeps %s on the dashboard', (url, expected) => {
    expect(safeCallbackUrl(url, base)).toBe(expected);
  });

  it.each([
    'https://evil.example/steal',
    '//evil.example/steal',
    '/\\evil.example/steal',
    '/\t/evil.example',
    'https:evil.example',
    'http://127.0.0.1:3001/',
    'http://127.0.0.1.evil.example/',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'http://[::1',
  ])('sends %s to the home page instead', (url) => {
    expect(safeCallbackUrl(url, base)).toBe('http://127.0.0.1:3000/');
  });
});

describe('logout', () => {
  it('names the session cookie as next-auth does', () => {
    expect(sessionCookieName('http://localhost:3000')).toBe('next-auth.session-token');
    expect(sessionCookieName('https://berth.example.com')).toBe('__Secure-next-auth.session-token');
  });

  it('clears the session cookie and each of its chunks, and nothing else', () => {
    const header = 'theme=dark; next-auth.session-token.0=aaa; next-auth.session-token.1=bbb; next-auth.session-token.x=c; next-auth.csrf-token=t';
    const cleared = clearedSessionCookies(header, 'http://localhost:3000');
    expect(cleared.map((c) => c.split('=')[0])).toEqual(['next-auth.session-token.0', 'next-auth.session-token.1']);
    for (const cookie of cleared) expect(cookie).toMatch(/^[^=]+=; Path=\/; Max-Age=0; .*HttpOnly; SameSite=Lax$/);
    expect(clearedSessionCookies('', 'https://berth.example.com')).toEqual([
      '__Secure-next-auth.session-token=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax; Secure',
    ]);
  });

  it("builds the provider's end-session URL, keeping its own query", () => {
    const url = new URL(endSessionUrl('https://kc.example.com/logout?ui_locales=en', { idToken: 'a.b.c', clientId: 'berth', postLogoutRedirect: 'https://berth.example.com/login' }));
    expect(url.origin + url.pathname).toBe('https://kc.example.com/logout');
    expect(Object.fromEntries(url.searchParams)).toEqual({ ui_locales: 'en', id_token_hint: 'a.b.c', client_id: 'berth', post_logout_redirect_uri: 'https://berth.example.com/login' });
  });

  it("finds the provider's discovery document under the issuer", () => {
    expect(wellKnownUrl('https://kc.example.com/realms/berth/')).toBe('https://kc.example.com/realms/berth/.well-known/openid-configuration');
  });
});
