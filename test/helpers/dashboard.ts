/**
 * What the browser tests of the dashboard share: Berth in-process with all its listeners on the built Next.js
 * app (ports chosen by the system, a fresh data directory), the sign-in form filled as a person would, and the
 * page's script errors collected so a test can require there were none.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page, Request } from 'playwright-core';
import { readSettings, type BerthSettings } from '../../server/config/env';
import { startBerth, type Berth } from '../../server/start';
import { webThreadScript } from '../../server/web/thread';
import { terminateAllSessions } from '../../server/manager/sessions';
import { launchBrowser, recordResponses, type TestBrowser } from './browser';
import { seedEmbeddedDatabase } from './embedded-template';

export const projectDir = fileURLToPath(new URL('../..', import.meta.url));
/** Where the e2e tests leave the screenshots the docs show. */
export const screenshotDir = path.join(projectDir, 'docs', 'screenshots');

export interface Dashboard {
  berth: Berth;
  webUrl: string;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts Berth on the built dashboard with the given admin password; `name` tells its data directory apart. With
 * `webThread` the dashboard runs in its worker thread, as `npm start` runs it (needs dist/, `npm run build`).
 */
export async function startDashboard(name: string, adminPassword: string, extra: Partial<BerthSettings> = {}, { webThread = false } = {}): Promise<Dashboard> {
  if (!existsSync(path.join(projectDir, '.next', 'BUILD_ID'))) {
    throw new Error('The dashboard is not built: run `npx next build` before the e2e tests.');
  }
  if (webThread && !existsSync(webThreadScript(projectDir))) throw new Error('dist/ is not built: run `npm run build` before the e2e tests.');
  const dataDir = mkdtempSync(path.join(tmpdir(), `berth-e2e-${name}-`));
  const settings = {
    ...readSettings({ NODE_ENV: 'test', BERTH_DATA_DIR: dataDir }),
    managerPort: 0,
    webPort: 0,
    appPort: 0,
    adminPassword,
    logLevel: 'silent',
    ...extra,
  };
  if (!settings.databaseUrl) seedEmbeddedDatabase(dataDir);
  const berth = await startBerth({ settings, projectDir, webThread });
  mkdirSync(screenshotDir, { recursive: true });
  return {
    berth,
    webUrl: berth.webUrl!,
    dataDir,
    async stop() {
      await terminateAllSessions(berth.app);
      await berth.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs in through next-auth's credentials flow, as the login form does, and returns the session cookie. */
export async function sessionCookie(webUrl: string, username: string, password: string): Promise<string> {
  const csrf = await fetch(`${webUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookies = csrf.headers.getSetCookie().map((c) => c.split(';')[0]);
  const form = new URLSearchParams({ csrfToken, domain: 'default', username, password, callbackUrl: webUrl, json: 'true' });
  const answer = await fetch(`${webUrl}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: csrfCookies.join('; '), Origin: webUrl },
    body: form,
  });
  const session = answer.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('next-auth.session-token='));
  if (!session) throw new Error(`sign-in failed: ${answer.status}`);
  return session;
}

/** Collects the tab's script errors and console errors into `errors` (failed loads, such as a refused request, aside). */
export function watchPageErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
}

/** Fills the sign-in form already open in `page` and sends it. */
export async function fillSignIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Email or username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Opens the login page, signs in and waits for the summary. */
export async function signIn(page: Page, webUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${webUrl}/login`);
  await fillSignIn(page, username, password);
  await page.waitForURL(`${webUrl}/`);
}

/** A request the tab sent to the dashboard's relay: its method, the manager's path, and its body. */
export interface RelayCall {
  method: string;
  path: string;
  body: string;
}

/** The relay calls `page` sends while `action` runs, in the order they were sent. */
export async function relayCallsDuring(page: Page, action: () => Promise<void>): Promise<RelayCall[]> {
  const calls: RelayCall[] = [];
  const onRequest = (request: Request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/api/manager/')) calls.push({ method: request.method(), path: pathname.slice('/api/manager'.length), body: request.postData() ?? '' });
  };
  page.on('request', onRequest);
  try {
    await action();
  } finally {
    page.off('request', onRequest);
  }
  return calls;
}

/**
 * Waits until the page's hooks have mounted and sent whatever they send on mount: `hydrated` is a sign written only
 * once mounted (useNow's times); SWR sends a mounted hook's first read on the next animation frame when it already
 * has data to show, and the browser reports the request a moment later.
 */
export async function waitForMountReads(page: Page, hydrated: () => Promise<unknown>): Promise<void> {
  await hydrated();
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.waitForTimeout(500);
}

export interface WatchedBrowser extends TestBrowser {
  /** Every response the browser received, for the checks that no key ever reached it. */
  recorder: ReturnType<typeof recordResponses>;
}

/** A browser for a dashboard test: its first tab's errors go to `errors`, and every response it receives is recorded. */
export async function launchWatchedBrowser(errors: string[]): Promise<WatchedBrowser> {
  const browser = await launchBrowser();
  watchPageErrors(browser.page, errors);
  return { ...browser, recorder: recordResponses(browser.context) };
}
