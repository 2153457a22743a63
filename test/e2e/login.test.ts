/**
 * The dashboard's sign-in in a real browser: Berth runs in-process with all its listeners (manager, dashboard,
 * app proxy) on the built Next.js app; Debian's Chromium signs in, sees the summary, and the test checks that the
 * user's keys never reach the browser and that the relay refuses cross-origin writes.
 *
 * Needs `npx next build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Berth } from '../../server/start';
import { screenshotDark, type RecordedResponse } from '../helpers/browser';
import { fillSignIn, launchWatchedBrowser, screenshotDir, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-admin-password-123';
const SESSION_COOKIE = 'next-auth.session-token';
const ANNOUNCEMENT = 'Scheduled maintenance on Saturday 10:00 UTC.';

let dashboard: Dashboard;
let berth: Berth;
let browser: WatchedBrowser;
let page: Page;
let webUrl: string;
let admin: { email: string; accessKey: string; secretKey: string };
let recorder: WatchedBrowser['recorder'];
/** Script errors and console errors of the dashboard tab (failed loads, such as the wrong password's 401, aside). */
const pageErrors: string[] = [];

const fillLogin = (username: string, password: string) => fillSignIn(page, username, password);

beforeAll(async () => {
  dashboard = await startDashboard('login', ADMIN_PASSWORD);
  ({ berth, webUrl } = dashboard);
  admin = berth.bootstrap.credentials!;
  browser = await launchWatchedBrowser(pageErrors);
  ({ page, recorder } = browser);
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

describe('dashboard sign-in', () => {
  it('sends a visitor without a session from / to the login page', async () => {
    await page.goto(`${webUrl}/`);
    await page.waitForURL(`${webUrl}/login`);
    await expect(page.getByRole('button', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(screenshotDir, 'login.png') });
  });

  it("shows the manager's problem for a wrong password", async () => {
    await fillLogin(admin.email, 'not-the-password');
    const error = page.getByTestId('login-error');
    await error.waitFor();
    const text = await error.innerText();
    expect(text).toContain('Unauthorized access');
    expect(text).toContain('User credential mismatch.');
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('signs in with email and password and shows the summary', async () => {
    await fillLogin(admin.email, ADMIN_PASSWORD);
    await page.waitForURL(`${webUrl}/`);
    await expect(page.getByTestId('user-email').innerText()).resolves.toBe(admin.email);
    await expect(page.getByTestId('user-role').innerText()).resolves.toBe('superadmin');
    const version = page.getByTestId('api-version');
    await version.waitFor();
    expect(await version.innerText()).toMatch(/^v\d+\.\d{8}$/);
  });

  it('keeps the session in an httpOnly, SameSite=Lax cookie that scripts cannot read', async () => {
    const cookies = await browser.context.cookies(webUrl);
    const session = cookies.find((c) => c.name === SESSION_COOKIE);
    expect(session).toBeDefined();
    expect(session!.httpOnly).toBe(true);
    expect(session!.sameSite).toBe('Lax');
    expect(session!.value).not.toContain(admin.accessKey);
    expect(await page.evaluate(() => document.cookie)).not.toContain(SESSION_COOKIE);
    // The cookie is sealed with a secret generated once for this data directory, readable only by its owner.
    expect(statSync(path.join(dashboard.dataDir, 'web-secret')).mode & 0o777).toBe(0o600);
  });

  it('relays a same-origin write and shows an enabled announcement', async () => {
    const status = await page.evaluate(async (message) => {
      const response = await fetch('/api/manager/manager/announcement', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ enabled: true, message }),
      });
      return response.status;
    }, ANNOUNCEMENT);
    expect(status).toBe(200);
    await page.reload();
    const banner = page.getByTestId('announcement');
    await banner.waitFor();
    expect(await banner.innerText()).toContain(ANNOUNCEMENT);
    await page.getByTestId('api-version').waitFor();
    await page.screenshot({ path: path.join(screenshotDir, 'summary.png') });
    await screenshotDark(page, path.join(screenshotDir, 'summary-dark.png'));
  });

  it('never hands the access or secret key to the browser', async () => {
    const sessionText = await page.evaluate(() => fetch('/api/auth/session').then((r) => r.text()));
    expect(JSON.parse(sessionText)).toMatchObject({ user: { email: admin.email }, role: 'superadmin' });

    const responses: RecordedResponse[] = await recorder.settled();
    const readable = responses.filter((r) => r.body !== null && r.url.startsWith(webUrl));
    const scripts = readable.filter((r) => r.resourceType === 'script');
    const documents = readable.filter((r) => r.resourceType === 'document');
    expect(scripts.length).toBeGreaterThan(0);
    expect(documents.length).toBeGreaterThan(0);
    const everything = [...readable.map((r) => ({ url: r.url, body: r.body! })), { url: 'DOM', body: await page.content() }, { url: '/api/auth/session', body: sessionText }];
    for (const { url, body } of everything) {
      expect(body.includes(admin.accessKey), `access key in ${url}`).toBe(false);
      expect(body.includes(admin.secretKey), `secret key in ${url}`).toBe(false);
    }
  });

  it('refuses a cross-origin POST to the relay with 403', async () => {
    const target = `${webUrl}/api/manager/auth/test`;
    // A page on another origin (the manager's own port) submitting a form with the user's cookie, as a CSRF
    // attempt would.
    const other = await browser.context.newPage();
    await other.goto(`${berth.managerUrl}/`);
    const answered = other.waitForResponse((r) => r.url() === target);
    await other.evaluate((url) => {
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = url;
      form.enctype = 'text/plain';
      const field = document.createElement('input');
      field.name = '{"echo":"csrf","x":"';
      field.value = '"}';
      form.append(field);
      document.body.append(form);
      setTimeout(() => form.submit(), 0);
    }, target);
    const answer = await answered;
    expect(answer.status()).toBe(403);
    expect(await answer.headerValue('content-type')).toContain('application/problem+json');
    await other.waitForURL(target);
    expect(await other.locator('body').innerText()).toContain('Cross-origin requests to the dashboard API are refused.');
    await other.close();

    // The same request from outside a browser, with the session cookie and a foreign Origin.
    const cookie = (await browser.context.cookies(webUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
    const forged = await fetch(target, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: 'http://attacker.example', 'Content-Type': 'application/json' },
      body: JSON.stringify({ echo: 'csrf' }),
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('content-type')).toContain('application/problem+json');
    const sameOrigin = await fetch(target, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: webUrl, 'Content-Type': 'application/json' },
      body: JSON.stringify({ echo: 'ok' }),
    });
    expect(await sameOrigin.json()).toEqual({ authorized: 'yes', echo: 'ok' });
  });

  it('refuses an altered session cookie at the relay while the genuine one is in use', async () => {
    const session = (await browser.context.cookies(webUrl)).find((c) => c.name === SESSION_COOKIE)!;
    const ask = (value: string) => fetch(`${webUrl}/api/manager/v2`, { headers: { Cookie: `${SESSION_COOKIE}=${value}` } });
    const genuine = await ask(session.value);
    expect(genuine.status).toBe(200);
    // The relay is a route handler (app/api/manager/route.ts): Next adds next.config.js's security headers.
    expect(genuine.headers.get('cache-control')).toBe('no-store');
    expect(genuine.headers.get('x-content-type-options')).toBe('nosniff');
    expect(genuine.headers.get('x-frame-options')).toBe('DENY');
    // One character of the authentication tag changed: the genuine cookie is remembered unsealed
    // (server/web/session-keys.ts), and the altered one is still refused.
    const at = session.value.length - 10;
    const altered = session.value.slice(0, at) + (session.value[at] === 'A' ? 'B' : 'A') + session.value.slice(at + 1);
    const refused = await ask(altered);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await ask(session.value)).status).toBe(200);
    // A large answer comes gzip-compressed, by Next, to a client that accepts it.
    const large = await fetch(`${webUrl}/api/manager/openapi.json`, { headers: { Cookie: `${SESSION_COOKIE}=${session.value}`, 'Accept-Encoding': 'gzip' } });
    expect(large.headers.get('content-encoding')).toBe('gzip');
    expect(Object.keys((await large.json()).paths).length).toBeGreaterThan(10);
  });

  it('signs out back to the login page, after which the relay answers 401', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${webUrl}/login`);
    const cookies = await browser.context.cookies(webUrl);
    expect(cookies.find((c) => c.name === SESSION_COOKIE)).toBeUndefined();
    const status = await page.evaluate(() => fetch('/api/manager/v2').then((r) => r.status));
    expect(status).toBe(401);
    await page.goto(`${webUrl}/`);
    await page.waitForURL(`${webUrl}/login`);
  });

  it('rendered every page without script errors (hydration included)', () => {
    expect(pageErrors).toEqual([]);
  });
});
