/**
 * The sessions pages in a real browser: a plain user signs in, launches a python session from the launcher,
 * types in its terminal, runs code in the console, opens Jupyter through the app proxy, uploads and downloads a
 * file, watches the list change live, and terminates the session; a frozen manager makes the launcher show the
 * refusal's reason; nothing the browser received (pages, scripts, API answers, the event stream) holds a key.
 *
 * Needs `npx next build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Berth } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { createUser } from '../../server/accounts/create-user';
import { screenshotDark } from '../helpers/browser';
import { launchWatchedBrowser, relayCallsDuring, waitForMountReads, screenshotDir, signIn, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-sessions-admin-123';
const USER_PASSWORD = 'e2e-sessions-user-456';
const SESSION = 'e2e-python';
const RENAMED = 'e2e-renamed';
const jupyterInstalled = existsSync('/usr/bin/jupyter-notebook') || existsSync('/usr/lib/python3/dist-packages/notebook');

let dashboard: Dashboard;
let berth: Berth;
let browser: WatchedBrowser;
let page: Page;
let webUrl: string;
let admin: BerthClient;
let user: { email: string; accessKey: string; secretKey: string; client: BerthClient };
let sessionUrl: string;
let recorder: WatchedBrowser['recorder'];
const pageErrors: string[] = [];

/** The text xterm.js shows in the active terminal. */
function terminalText(): Promise<string> {
  return page.getByTestId('active-terminal').locator('.xterm-rows').innerText();
}

async function waitForTerminal(text: string): Promise<void> {
  await page.waitForFunction(
    (expected) => document.querySelector('[data-testid="active-terminal"] .xterm-rows')?.textContent?.includes(expected) ?? false,
    text,
    { timeout: 20_000 },
  );
}

async function waitForStatus(status: string): Promise<void> {
  await page.locator(`[data-testid="session-status"][data-status="${status}"]`).first().waitFor({ timeout: 60_000 });
}

/** A screenshot of the page from its top in a taller window, so a whole page fits; the window is restored after. */
async function screenshotTall(file: string, height: number): Promise<void> {
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: size.width, height });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.mouse.move(size.width - 10, height - 10);
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(screenshotDir, file) });
  await page.setViewportSize(size);
}

beforeAll(async () => {
  dashboard = await startDashboard('sessions', ADMIN_PASSWORD);
  ({ berth, webUrl } = dashboard);
  const creds = berth.bootstrap.credentials!;
  admin = new BerthClient({ endpoint: berth.managerUrl, accessKey: creds.accessKey, secretKey: creds.secretKey });
  const email = 'researcher@example.com';
  const created = await createUser(berth.app.db, {
    email,
    username: 'researcher',
    password: USER_PASSWORD,
    domainName: 'default',
    role: 'user',
    keypair: { isAdmin: false, rateLimit: 10000 },
  });
  user = { email, accessKey: created.accessKey, secretKey: created.secretKey, client: new BerthClient({ endpoint: berth.managerUrl, accessKey: created.accessKey, secretKey: created.secretKey }) };

  browser = await launchWatchedBrowser(pageErrors);
  ({ page, recorder } = browser);

  await signIn(page, webUrl, email, USER_PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  admin?.close();
  user?.client.close();
  await dashboard?.stop();
});

describe('sessions in the dashboard', () => {
  it('shows an empty list that points to the launcher', async () => {
    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.waitForURL(`${webUrl}/sessions`);
    const empty = page.getByTestId('sessions-empty');
    await empty.waitFor();
    expect(await empty.innerText()).toContain('No sessions running');
    await empty.getByRole('link', { name: 'Start a session' }).click();
    await page.waitForURL(`${webUrl}/sessions/new`);
  });

  it('launches a python session from the launcher and shows it starting, then running', async () => {
    await page.getByTestId('image-select').waitFor();
    expect(await page.getByTestId('image-select').innerText()).toContain('berth/python:3.11');
    // The presets come with their allocatability; the first allocatable one is chosen.
    await page.locator('[data-testid^="preset-"][aria-checked="true"]').waitFor();
    await page.getByLabel('Session name').fill(SESSION);
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Name', { exact: true }).fill('GREETING');
    await page.getByLabel('Value', { exact: true }).fill('hello-from-launcher');
    await screenshotTall('launcher.png', 1300);
    await page.getByRole('button', { name: 'Launch', exact: true }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/);
    sessionUrl = page.url();
    await waitForStatus('RUNNING');
    expect(await page.getByTestId('session-name').innerText()).toBe(SESSION);
  });

  it('types in the terminal and sees the output, in several tabs', async () => {
    const terminal = page.getByTestId('active-terminal').getByTestId('terminal');
    await page.locator('[data-testid="active-terminal"] [data-testid="terminal"][data-state="open"]').waitFor({ timeout: 20_000 });
    await terminal.click();
    await page.keyboard.type('echo berth-$((6*7)) $GREETING\n');
    await waitForTerminal('berth-42 hello-from-launcher');
    await page.keyboard.type('stty size\n');
    // The pty was resized to the terminal's box: far wider than the 80 columns it starts with.
    let columns = 0;
    for (let i = 0; i < 100 && columns === 0; i++) {
      const size = (await terminalText()).split('\n').map((line) => /^(\d+) (\d+)\s*$/.exec(line.trim())).find(Boolean);
      if (size) columns = Number(size[2]);
      else await page.waitForTimeout(100);
    }
    expect(columns).toBeGreaterThan(80);
    await screenshotTall('session.png', 1080);
    // xterm draws with a theme of its own: it must follow the scheme too.
    await screenshotDark(page, path.join(screenshotDir, 'session-dark.png'), { ready: '[data-testid="active-terminal"] [data-testid="terminal"][data-scheme="dark"]' });
    await page.locator('[data-testid="active-terminal"] [data-testid="terminal"][data-scheme="light"]').waitFor();

    await page.getByRole('button', { name: 'New terminal' }).click();
    await page.locator('[data-testid="active-terminal"] [data-testid="terminal"][data-state="open"]').waitFor({ timeout: 20_000 });
    await page.getByTestId('active-terminal').getByTestId('terminal').click();
    await page.keyboard.type('echo second-$((1+1))\n');
    await waitForTerminal('second-2');
    expect(await terminalText()).not.toContain('berth-42');

    // A shell that exits drops the socket; Reconnect opens a new one.
    await page.keyboard.type('exit\n');
    await page.getByTestId('active-terminal').getByTestId('terminal-reconnect').click();
    await page.locator('[data-testid="active-terminal"] [data-testid="terminal"][data-state="open"]').waitFor({ timeout: 20_000 });
    await page.getByTestId('active-terminal').getByTestId('terminal').click();
    await page.keyboard.type('echo again-$((2+1))\n');
    await waitForTerminal('again-3');

    await page.getByRole('tab', { name: /Terminal 1/ }).click();
    expect(await terminalText()).toContain('berth-42');
  });

  it('runs code in the console, with input', async () => {
    await page.getByRole('tab', { name: 'Console' }).click();
    await page.getByTestId('console-code').fill('print(6*7)');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const first = page.getByTestId('console-run').first();
    await page.locator('[data-testid="console-run"][data-status="finished"]').first().waitFor({ timeout: 30_000 });
    expect(await first.getByTestId('console-output').innerText()).toContain('42');

    await page.getByTestId('console-code').fill("name = input('who? ')\nprint('hi ' + name)");
    await page.getByTestId('console-code').press('Control+Enter');
    await page.getByTestId('console-input').waitFor({ timeout: 30_000 });
    await page.getByTestId('console-input').fill('berth');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('[data-testid="console-run"][data-status="finished"]').nth(1).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('console-run').nth(1).innerText()).toContain('hi berth');
  });

  it('uploads a file with progress and downloads it again', async () => {
    await page.getByRole('tab', { name: 'Files' }).click();
    const content = 'uploaded from the browser\n'.repeat(2000);
    await page.getByTestId('file-upload-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(content) });
    await page.getByText('Uploaded notes.txt.').waitFor({ timeout: 20_000 });
    const row = page.locator('[data-testid="file-row"][data-name="notes.txt"]');
    await row.waitFor();
    const download = page.waitForEvent('download');
    await row.getByRole('link', { name: 'Download notes.txt' }).click();
    const file = await (await download).path();
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it.runIf(jupyterInstalled)('opens Jupyter in a new tab through the app proxy', async () => {
    const popup = browser.context.waitForEvent('page');
    await page.getByTestId('app-jupyter').click();
    const tab = await popup;
    await tab.waitForURL(/\/app\/[0-9a-f]{24}\/tree/, { timeout: 60_000 });
    expect(new URL(tab.url()).origin).toBe(new URL(berth.appsUrl!).origin);
    await tab.waitForLoadState('load');
    expect(await tab.title()).toMatch(/Jupyter|Home/);
    // The dashboard is out of the app's reach: no opener, and the app origin is not the dashboard's.
    expect(await tab.evaluate(() => window.opener)).toBeNull();
    await tab.close();
  });

  it('shows the logs', async () => {
    await page.getByRole('tab', { name: 'Logs' }).click();
    await page.getByTestId('session-logs').waitFor();
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await page.getByTestId('session-logs').waitFor();
  });

  it('lists sessions with live status: one created elsewhere appears and leaves without a reload', async () => {
    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.waitForURL(`${webUrl}/sessions`);
    await page.locator(`[data-testid="session-row"][data-session-name="${SESSION}"] [data-status="RUNNING"]`).waitFor();
    await page.mouse.move(640, 700);
    await page.waitForTimeout(600);
    await page.screenshot({ path: path.join(screenshotDir, 'sessions.png') });
    await screenshotDark(page, path.join(screenshotDir, 'sessions-dark.png'));

    const created = await user.client.call('POST', '/session', { body: { name: 'e2e-live', image: 'shell', enqueueOnly: true } });
    await page.locator('[data-testid="session-row"][data-session-name="e2e-live"] [data-status="RUNNING"]').waitFor({ timeout: 30_000 });
    await user.client.call('DELETE', `/session/${created.sessionId}`);
    await page.locator('[data-testid="session-row"][data-session-name="e2e-live"]').waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByRole('button', { name: 'Finished', exact: true }).click();
    await page.locator('[data-testid="session-row"][data-session-name="e2e-live"]').waitFor();
    await page.getByRole('button', { name: 'Running', exact: true }).click();
  });

  it("sends the list's first page in the page's HTML, reads no list on a full load, and stays live", async () => {
    // Read by the page's server render with the user's keys (app/lib/page-data.ts), handed to the list's hook.
    const html = await (await page.request.get(`${webUrl}/sessions`)).text();
    expect(html).toContain(`data-session-name="${SESSION}"`);

    const row = (name: string) => page.locator(`[data-testid="session-row"][data-session-name="${name}"]`);
    const calls = await relayCallsDuring(page, async () => {
      await page.goto(`${webUrl}/sessions`);
      // The relative start time is written once the page has hydrated.
      await waitForMountReads(page, () => page.waitForFunction((name) => document.querySelector(`[data-session-name="${name}"] td:last-child`)?.textContent?.trim(), SESSION));
    });
    expect(calls.filter((c) => c.path === '/admin/gql' && c.body.includes('compute_session_list'))).toEqual([]);

    // Rows that came with the HTML are refreshed by session events like any others.
    const created = await user.client.call('POST', '/session', { body: { name: 'e2e-live-ssr', image: 'shell', enqueueOnly: true } });
    await row('e2e-live-ssr').waitFor({ timeout: 30_000 });
    await user.client.call('DELETE', `/session/${created.sessionId}`);
    await row('e2e-live-ssr').waitFor({ state: 'detached', timeout: 30_000 });
  });

  it('renames the session, and restarts it keeping its files', async () => {
    await page.goto(sessionUrl);
    await waitForStatus('RUNNING');
    await page.getByRole('button', { name: 'Rename session' }).click();
    const rename = page.getByRole('dialog');
    await rename.getByLabel('Name').fill(RENAMED);
    await rename.getByRole('button', { name: 'Rename', exact: true }).click();
    await page.waitForFunction((name) => document.querySelector('[data-testid="session-name"]')?.textContent === name, RENAMED);

    await page.getByRole('button', { name: 'Restart', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restart', exact: true }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await waitForStatus('RUNNING');
    await page.locator('[data-testid="active-terminal"] [data-testid="terminal"][data-state="open"]').waitFor({ timeout: 30_000 });
    await page.getByTestId('active-terminal').getByTestId('terminal').click();
    await page.keyboard.type('wc -c < notes.txt\n');
    await waitForTerminal('52000');
  });

  it('terminates the session after a confirmation', async () => {
    await page.goto(sessionUrl);
    await waitForStatus('RUNNING');
    await page.getByRole('button', { name: 'Terminate', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain(`Terminate ${RENAMED}?`);
    await dialog.getByRole('button', { name: 'Terminate', exact: true }).click();
    await waitForStatus('TERMINATED');
    expect(await page.getByText('This session has ended.').isVisible()).toBe(true);
  });

  it("shows a frozen manager's refusal in the launcher", async () => {
    await admin.call('PUT', '/manager/status', { body: { status: 'frozen' } });
    try {
      await page.goto(`${webUrl}/sessions/new`);
      await page.getByTestId('image-select').waitFor();
      await page.getByRole('button', { name: 'Launch', exact: true }).click();
      const error = page.getByTestId('launch-error');
      await error.waitFor();
      const text = await error.innerText();
      expect(text).toContain('The server is frozen due to maintenance.');
      expect(text).toContain('The manager is frozen');
      expect(new URL(page.url()).pathname).toBe('/sessions/new');
    } finally {
      await admin.call('PUT', '/manager/status', { body: { status: 'running' } });
    }
  });

  it('relays the event stream to the browser without any key', async () => {
    await page.goto(`${webUrl}/sessions`);
    const collecting = page.evaluate(
      () =>
        new Promise<string[]>((resolve, reject) => {
          const seen: string[] = [];
          const source = new EventSource('/api/manager/events/session');
          const timer = setTimeout(() => reject(new Error(`no session_started; saw ${seen.join(' | ')}`)), 30_000);
          const keep = (e: MessageEvent<string>) => {
            seen.push(`${e.type} ${e.data}`);
            if (e.type === 'session_started') {
              clearTimeout(timer);
              source.close();
              resolve(seen);
            }
          };
          for (const name of ['session_enqueued', 'session_scheduled', 'session_preparing', 'kernel_preparing', 'kernel_creating', 'kernel_started', 'session_started']) {
            source.addEventListener(name, keep as EventListener);
          }
          source.onopen = () => document.body.setAttribute('data-events-open', 'yes');
        }),
    );
    await page.locator('body[data-events-open="yes"]').waitFor();
    const created = await user.client.call('POST', '/session', { body: { name: 'e2e-events', image: 'shell' } });
    const events = await collecting;
    await user.client.call('DELETE', `/session/${created.sessionId}`);
    expect(events.some((e) => e.startsWith('session_started') && e.includes('"sessionName":"e2e-events"'))).toBe(true);
    for (const event of events) {
      expect(event).not.toContain(user.accessKey);
      expect(event).not.toContain('ownerAccessKey');
    }
  });

  it('never hands an access or secret key to the browser', async () => {
    // Leave the pages so open event streams end and every recorded body can be read.
    await page.goto('about:blank');
    const responses = await recorder.settled();
    const readable = responses.filter((r) => r.body !== null && r.url.startsWith(webUrl));
    expect(readable.filter((r) => r.resourceType === 'script').length).toBeGreaterThan(0);
    expect(readable.some((r) => r.url.includes('/api/manager/admin/gql'))).toBe(true);
    expect(readable.some((r) => r.url.includes('/api/manager/session/'))).toBe(true);
    const keys = [user.accessKey, user.secretKey, berth.bootstrap.credentials!.accessKey, berth.bootstrap.credentials!.secretKey];
    for (const { url, body } of readable) {
      for (const key of keys) expect(body!.includes(key), `a key in ${url}`).toBe(false);
    }
  });

  it('rendered every page without script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
