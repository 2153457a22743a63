/**
 * Single sign-on in a real browser: Berth in-process on the built dashboard, a real OpenID provider (oidc-provider)
 * on another loopback host, and Chromium going through the whole redirect flow: a new user is provisioned, an
 * existing one linked, the admin group mapped; an unverified email, a tampered state or nonce and an inactive user
 * are refused; no callbackUrl leads off the dashboard; logout continues to the provider's end-session endpoint; a
 * provider that is down leaves a clear message and password login working; BERTH_PASSWORD_LOGIN=false, read at run
 * time, leaves only the provider's button.
 *
 * Needs `npm run build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { readOidcSettings } from '../../server/config/env';
import { createUser } from '../../server/accounts/create-user';
import { json } from '../../server/db';
import { launchWatchedBrowser, screenshotDir, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider';

const ADMIN_PASSWORD = 'e2e-sso-admin-password-1';
const PROVIDER = 'Acme ID';
const SESSION_COOKIE = 'next-auth.session-token';
/** A signed JWT (an ID token, say) anywhere in a text. */
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/;

let provider: TestOidcProvider;
let dashboard: Dashboard;
let browser: WatchedBrowser;
let page: Page;
let webUrl: string;
let oidcEnv: Record<string, string>;
const pageErrors: string[] = [];

const db = () => dashboard.berth.app.db;
const userByEmail = (email: string) => db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
const projectsOf = async (uuid: string) =>
  (await db().selectFrom('association_groups_users as a').innerJoin('groups as g', 'g.id', 'a.group_id').select('g.name').where('a.user_id', '=', uuid).orderBy('g.name').execute()).map((r) => r.name);
const sessionCookie = async () => (await browser.context.cookies(webUrl)).find((c) => c.name === SESSION_COOKIE);
const onDashboard = (pathname: string) => (url: URL) => url.origin === new URL(webUrl).origin && url.pathname === pathname;
const atProvider = (pathname: string) => (url: URL) => url.origin === provider.issuer && url.pathname.startsWith(pathname);

/** From a signed-out browser: the login page's provider button, then the provider's login form as `login`. */
async function ssoSignIn(login: string): Promise<void> {
  await browser.context.clearCookies();
  await page.goto(`${webUrl}/login`);
  await page.getByRole('button', { name: `Sign in with ${PROVIDER}` }).click();
  await logInAtProvider(login);
}

async function logInAtProvider(login: string): Promise<void> {
  await page.waitForURL(atProvider('/interaction/'));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button.login-submit').click();
}

/** The problem the login page shows after a refused sign-in. */
async function loginError(): Promise<string> {
  await page.waitForURL(onDashboard('/login'));
  const error = page.getByTestId('login-error');
  await error.waitFor();
  return error.innerText();
}

async function signedInAs(): Promise<{ email: string; role: string }> {
  await page.waitForURL(onDashboard('/'));
  return { email: await page.getByTestId('user-email').innerText(), role: await page.getByTestId('user-role').innerText() };
}

/** Sends the provider's authorization request with one parameter changed, as an attacker in the middle would. */
async function tamperOnce(param: 'state' | 'nonce'): Promise<void> {
  await page.route(
    atProvider('/auth'),
    async (route) => {
      const url = new URL(route.request().url());
      expect(url.searchParams.get(param)).toBeTruthy();
      url.searchParams.set(param, `forged-${randomUUID()}`);
      await route.fulfill({ status: 302, headers: { location: url.href } });
    },
    { times: 1 },
  );
}

beforeAll(async () => {
  provider = await startOidcProvider({
    'new-user': { email: 'new.person@example.com', email_verified: true, name: 'New Person', groups: ['staff'] },
    existing: { email: 'existing@example.com', email_verified: true, name: 'Existing Person' },
    boss: { email: 'boss@example.com', email_verified: true, name: 'The Boss', groups: ['/berth-admins', 'ml-team'] },
    unverified: { email: 'unverified@example.com', email_verified: false, name: 'Not Verified' },
    inactive: { email: 'inactive@example.com', email_verified: true, name: 'Gone Away' },
  });
  oidcEnv = provider.env({ BERTH_OIDC_NAME: PROVIDER, BERTH_OIDC_ADMIN_GROUP: 'berth-admins', BERTH_OIDC_GROUP_PROJECTS: 'ml-team=ml' });
  // The dashboard reads them at each request; the manager from its settings, read from the same variables.
  Object.assign(process.env, oidcEnv);
  dashboard = await startDashboard('sso', ADMIN_PASSWORD, { oidc: readOidcSettings(oidcEnv) });
  webUrl = dashboard.webUrl;
  provider.registerClient(webUrl);
  // Berth's side: a user of the same email in other letter case, an inactive one, and the project `ml`.
  await createUser(db(), { email: 'Existing@Example.com', password: 'existing-password-1', domainName: 'default' });
  await createUser(db(), { email: 'inactive@example.com', password: 'inactive-password-1', domainName: 'default', status: 'inactive' });
  await db()
    .insertInto('groups')
    .values({ id: randomUUID(), name: 'ml', domain_name: 'default', total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) })
    .execute();
  browser = await launchWatchedBrowser(pageErrors);
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
  await provider?.stop();
  for (const name of [...Object.keys(oidcEnv ?? {}), 'BERTH_PASSWORD_LOGIN']) delete process.env[name];
});

describe('single sign-on', () => {
  it(`offers "Sign in with ${PROVIDER}" beside the password form`, async () => {
    await page.goto(`${webUrl}/login`);
    await page.getByRole('button', { name: `Sign in with ${PROVIDER}` }).waitFor();
    await expect(page.getByRole('button', { name: 'Sign in', exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Password').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(screenshotDir, 'login-sso.png') });
    // The page knows the button's name and nothing else of the provider.
    const html = await page.content();
    for (const secret of [provider.clientSecret, provider.issuer, provider.clientId]) expect(html).not.toContain(secret);
  });

  it('provisions a new user on the first login: role user, default project, keys only in the sealed cookie', async () => {
    await ssoSignIn('new-user');
    expect(await signedInAs()).toEqual({ email: 'new.person@example.com', role: 'user' });
    const user = (await userByEmail('new.person@example.com'))!;
    expect(user).toMatchObject({ role: 'user', status: 'active', domain_name: 'default', full_name: 'New Person' });
    expect(await projectsOf(user.uuid)).toEqual(['default']);
    const link = await db().selectFrom('oidc_identities').selectAll().where('user_id', '=', user.uuid).executeTakeFirstOrThrow();
    expect(link).toMatchObject({ issuer: provider.issuer, subject: 'new-user' });

    const session = await page.evaluate(() => fetch('/api/auth/session').then((r) => r.json()));
    expect(session).toEqual({ user: { email: 'new.person@example.com', name: 'New Person' }, role: 'user', expires: expect.any(String) });
    const cookie = (await sessionCookie())!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    // The signed relay works with the keys the manager handed out.
    expect(await page.evaluate(() => fetch('/api/manager/auth/test?echo=sso').then((r) => r.json()))).toEqual({ authorized: 'yes', echo: 'sso' });

    // Nothing the dashboard sent the browser holds the keys, an ID token or the client secret.
    const keypair = await db().selectFrom('keypairs').select(['access_key', 'secret_key']).where('user_id', '=', user.uuid).executeTakeFirstOrThrow();
    const responses = (await browser.recorder.settled()).filter((r) => r.body !== null && r.url.startsWith(webUrl));
    const texts = [...responses.map((r) => ({ url: r.url, body: r.body! })), { url: 'DOM', body: await page.content() }, { url: 'session', body: JSON.stringify(session) }];
    for (const { url, body } of texts) {
      expect(body.includes(keypair.access_key), `access key in ${url}`).toBe(false);
      expect(body.includes(keypair.secret_key), `secret key in ${url}`).toBe(false);
      expect(body.includes(provider.clientSecret), `client secret in ${url}`).toBe(false);
      expect(JWT.test(body), `a JWT in ${url}`).toBe(false);
    }
    expect(await page.evaluate(() => document.cookie)).not.toContain(SESSION_COOKIE);
  });

  it("signs out through the provider's end-session endpoint back to the login page", async () => {
    const endSession: Request[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${provider.issuer}/session/end`)) endSession.push(request);
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(atProvider('/session/end'));
    const hint = new URL(endSession[0].url()).searchParams;
    expect(hint.get('id_token_hint')).toMatch(JWT);
    expect(hint.get('post_logout_redirect_uri')).toBe(`${webUrl}/login`);
    // The dashboard's session ended before the browser reached the provider.
    expect(await sessionCookie()).toBeUndefined();
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(onDashboard('/login'));
    expect(await page.evaluate(() => fetch('/api/manager/v2').then((r) => r.status))).toBe(401);
  });

  it('links the existing user of that email instead of creating another', async () => {
    const before = (await userByEmail('Existing@Example.com'))!;
    await ssoSignIn('existing');
    expect(await signedInAs()).toEqual({ email: 'Existing@Example.com', role: 'user' });
    const link = await db().selectFrom('oidc_identities').select('user_id').where('subject', '=', 'existing').executeTakeFirstOrThrow();
    expect(link.user_id).toBe(before.uuid);
    expect(await userByEmail('existing@example.com')).toBeUndefined();
  });

  it('maps the admin group to the admin role and a mapped group to its project', async () => {
    await ssoSignIn('boss');
    expect(await signedInAs()).toEqual({ email: 'boss@example.com', role: 'admin' });
    const user = (await userByEmail('boss@example.com'))!;
    expect(user.role).toBe('admin');
    expect(await projectsOf(user.uuid)).toEqual(['default', 'ml']);
    expect((await db().selectFrom('keypairs').select('is_admin').where('user_id', '=', user.uuid).executeTakeFirstOrThrow()).is_admin).toBe(true);
  });

  it('refuses an unverified email and creates no user', async () => {
    await ssoSignIn('unverified');
    const text = await loginError();
    expect(text).toContain('is not verified at Acme ID');
    expect(await sessionCookie()).toBeUndefined();
    expect(await userByEmail('unverified@example.com')).toBeUndefined();
  });

  it('refuses a user who is inactive in Berth, though the provider says yes', async () => {
    await ssoSignIn('inactive');
    expect(await loginError()).toContain('is inactive');
    expect(await sessionCookie()).toBeUndefined();
  });

  it.each(['state', 'nonce'] as const)('refuses the answer to an authorization request whose %s was tampered with', async (param) => {
    await browser.context.clearCookies();
    await page.goto(`${webUrl}/login`);
    await tamperOnce(param);
    await page.getByRole('button', { name: `Sign in with ${PROVIDER}` }).click();
    await logInAtProvider('new-user');
    const text = await loginError();
    expect(text).toContain('Single sign-on failed');
    expect(text).toContain('did not pass the security checks');
    expect(await sessionCookie()).toBeUndefined();
  });

  it('refuses a callback that no sign-in of this browser started', async () => {
    await browser.context.clearCookies();
    await page.goto(`${webUrl}/api/auth/callback/oidc?code=forged-code&state=forged-state`);
    expect(await loginError()).toContain('Single sign-on failed');
    expect(await sessionCookie()).toBeUndefined();
  });

  it('never follows a callbackUrl off the dashboard', async () => {
    await browser.context.clearCookies();
    await page.goto(`${webUrl}/login`);
    await page.evaluate(async () => {
      const { csrfToken } = (await fetch('/api/auth/csrf').then((r) => r.json())) as { csrfToken: string };
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = '/api/auth/signin/oidc';
      for (const [name, value] of Object.entries({ csrfToken, callbackUrl: 'https://evil.example/steal' })) {
        const input = Object.assign(document.createElement('input'), { type: 'hidden', name, value });
        form.append(input);
      }
      document.body.append(form);
      setTimeout(() => form.submit(), 0);
    });
    await logInAtProvider('new-user');
    expect(await signedInAs()).toEqual({ email: 'new.person@example.com', role: 'user' });
    const remembered = (await browser.context.cookies(webUrl)).find((c) => c.name === 'next-auth.callback-url');
    expect(decodeURIComponent(remembered?.value ?? '')).not.toContain('evil.example');
  });

  it('shows a clear message when the provider is down, and password login keeps working', async () => {
    await provider.pause();
    try {
      await browser.context.clearCookies();
      await page.goto(`${webUrl}/login`);
      await page.getByRole('button', { name: `Sign in with ${PROVIDER}` }).click();
      const text = await loginError();
      expect(text).toContain('Single sign-on is unavailable');
      expect(text).toContain('Acme ID could not be reached');
      expect(text).toContain('You can still sign in with your password.');
      await page.getByLabel('Email or username').fill(dashboard.berth.bootstrap.credentials!.email);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      expect(await signedInAs()).toEqual({ email: dashboard.berth.bootstrap.credentials!.email, role: 'superadmin' });
      // A password session signs out locally, without a detour through the provider.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(onDashboard('/login'));
    } finally {
      await provider.resume();
    }
  });

  it('leaves only the provider button with BERTH_PASSWORD_LOGIN=false (read at run time) and refuses password sign-ins', async () => {
    process.env.BERTH_PASSWORD_LOGIN = 'false';
    try {
      await browser.context.clearCookies();
      await page.goto(`${webUrl}/login`);
      await page.getByRole('button', { name: `Sign in with ${PROVIDER}` }).waitFor();
      expect(await page.getByLabel('Password').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(0);
      const status = await page.evaluate(async (password) => {
        const { csrfToken } = (await fetch('/api/auth/csrf').then((r) => r.json())) as { csrfToken: string };
        const body = new URLSearchParams({ csrfToken, domain: 'default', username: 'admin@berth.local', password, json: 'true' });
        await fetch('/api/auth/callback/credentials', { method: 'POST', body });
        return fetch('/api/auth/session').then((r) => r.json());
      }, ADMIN_PASSWORD);
      expect(status).toEqual({});
      expect(await sessionCookie()).toBeUndefined();
    } finally {
      delete process.env.BERTH_PASSWORD_LOGIN;
    }
    await page.goto(`${webUrl}/login`);
    await expect(page.getByLabel('Password').isVisible()).resolves.toBe(true);
  });

  it('rendered every dashboard page without script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
