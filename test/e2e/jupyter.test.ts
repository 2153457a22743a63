/**
 * Jupyter through the app proxy in a real browser (issue 4): Berth runs in-process with the manager and the app
 * proxy; a user creates a python session and starts Jupyter through the API, Debian's Chromium opens the URL the
 * proxy's /add answers (the token is exchanged for the route cookie there), creates a notebook from the tree page,
 * runs `print(6*7)` and sees 42, which only works if the kernel WebSocket does. The route cookie must be HttpOnly
 * and scoped to /app/<route>/.
 *
 * Needs /usr/bin/chromium and Debian's jupyter-notebook; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { launchBrowser, type TestBrowser } from '../helpers/browser';

const projectDir = fileURLToPath(new URL('../..', import.meta.url));
const screenshotDir = path.join(projectDir, 'docs', 'screenshots');
const SESSION = 'e2e-jupyter';

let t: TestBerth;
let user: TestUser;
let browser: TestBrowser;
let tree: Page;
let notebook: Page;
let sessionId: string;
let routeId: string;
/** Script errors on the Jupyter pages. */
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await startTestBerth({}, { roles: ['manager', 'apps'] });
  user = await t.createUser();
  sessionId = (await user.client.call('POST', '/session', { body: { name: SESSION, image: 'python' } })).sessionId;
  browser = await launchBrowser();
  tree = browser.page;
  browser.context.on('page', (page) => page.on('pageerror', (error) => pageErrors.push(error.message)));
  tree.on('pageerror', (error) => pageErrors.push(error.message));
  mkdirSync(screenshotDir, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe('Jupyter through the app proxy in Chromium', () => {
  it('opens the URL from /add and lands on the Jupyter tree page', async () => {
    const started = await user.client.call('POST', `/session/${SESSION}/start-service`, { body: { app: 'jupyter' } });
    expect(started.wsproxy_addr).toBe(t.berth.appsUrl);
    // What the dashboard does: ask the proxy for the app's URL, then open it in the browser.
    const added = await (await fetch(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=jupyter&protocol=http`)).json();
    expect(added).toMatchObject({ code: 200, url: expect.stringContaining('/v2/proxy/auth?') });

    await tree.goto(added.url, { waitUntil: 'domcontentloaded' });
    await tree.waitForURL(/\/app\/[0-9a-f]{24}\/tree/);
    routeId = /\/app\/([0-9a-f]{24})\//.exec(tree.url())![1];
    expect(tree.url().startsWith(`${t.berth.appsUrl}/app/${routeId}/`)).toBe(true);
    await tree.locator('#notebook_list').waitFor();
    await tree.locator('#new-dropdown-button').waitFor();
  });

  it('creates a Python 3 notebook from the New menu', async () => {
    await tree.locator('#new-dropdown-button').click();
    const item = tree.locator('#new-menu li[id^="kernel-python"] a').first();
    await item.waitFor();
    // Notebook 6 opens the new notebook in a new tab.
    const opened = browser.context.waitForEvent('page');
    await item.click();
    notebook = await opened;
    await notebook.waitForURL(/\/app\/[0-9a-f]{24}\/notebooks\/Untitled.*\.ipynb/);
    expect(notebook.url().startsWith(`${t.berth.appsUrl}/app/${routeId}/notebooks/`)).toBe(true);
    // The kernel is connected (over its WebSocket) and idle.
    await notebook.locator('#kernel_indicator_icon.kernel_idle_icon').waitFor({ timeout: 60_000 });
  });

  it('runs print(6*7) with Shift+Enter and shows 42', async () => {
    const cell = notebook.locator('.cell.code_cell').first();
    await cell.locator('.CodeMirror').click();
    await notebook.keyboard.type('print(6*7)');
    await notebook.keyboard.press('Shift+Enter');
    const output = cell.locator('.output_area .output_text');
    await output.waitFor({ timeout: 60_000 });
    expect((await output.innerText()).trim()).toBe('42');
    await expect(cell.locator('.input_prompt').innerText()).resolves.toMatch(/\[1\]/);
    await notebook.screenshot({ path: path.join(screenshotDir, 'jupyter.png') });
  });

  it('keeps the route cookie HttpOnly and scoped to /app/<route>/', async () => {
    const base = `${t.berth.appsUrl}/app/${routeId}/`;
    const route = (await browser.context.cookies(base)).find((c) => c.name === `berth_app_${routeId}`);
    expect(route).toBeDefined();
    expect(route!.httpOnly).toBe(true);
    expect(route!.path).toBe(`/app/${routeId}/`);
    expect(route!.sameSite).toBe('Lax');
    // Outside the route's path (the proxy's root, another route) the browser does not send it.
    for (const elsewhere of [`${t.berth.appsUrl}/`, `${t.berth.appsUrl}/app/${'0'.repeat(24)}/`]) {
      expect((await browser.context.cookies(elsewhere)).map((c) => c.name)).not.toContain(route!.name);
    }
    // Scripts on the app's pages cannot read it.
    expect(await notebook.evaluate(() => document.cookie)).not.toContain('berth_app_');
  });

  it('rendered the Jupyter pages without script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
