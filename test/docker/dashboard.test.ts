/**
 * A container session driven from the dashboard in a real browser, as the Docker issue's "done" reads: a user
 * launches the engine's Python image on the `docker` scaling group from the launcher, types in its terminal (a
 * shell in the container), runs code in its console, saves it as an image, and launches that image from the
 * launcher's "Your images" with the files it kept.
 *
 * Needs the private dockerd of the test command (scripts/with-docker.mjs), the built dashboard and /usr/bin/chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import Docker from 'dockerode';
import { createUser } from '../../server/accounts/create-user';
import { launchWatchedBrowser, signIn, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';
import { dockerEngine } from './engine';

const engine = dockerEngine();
const docker = new Docker({ socketPath: engine.socket });
const USER_PASSWORD = 'docker-dashboard-user-1';
const TAG = `saved-${Date.now().toString(36)}`;
let dashboard: Dashboard;
let browser: WatchedBrowser;
let page: Page;
let webUrl: string;
const pageErrors: string[] = [];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function waitForTerminal(text: string): Promise<void> {
  await page.waitForFunction(
    (expected) => document.querySelector('[data-testid="active-terminal"] .xterm-rows')?.textContent?.includes(expected) ?? false,
    text,
    { timeout: 30_000 },
  );
}

/** Fills the launcher with `image` on the docker scaling group and launches; resolves on the session's page, RUNNING. */
async function launch(image: string, name: string): Promise<void> {
  await page.goto(`${webUrl}/sessions/new`);
  await page.getByTestId('image-select').click();
  await page.getByTestId('image-menu').getByRole('option', { name: new RegExp(`^${escape(image)}`) }).click();
  await page.getByTestId('scaling-group-select').click();
  await page.getByRole('option', { name: 'docker', exact: true }).click();
  await page.getByLabel('Session name').fill(name);
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/);
  await page.locator('[data-testid="session-status"][data-status="RUNNING"]').first().waitFor({ timeout: 90_000 });
}

async function typeInTerminal(line: string): Promise<void> {
  await page.locator('[data-testid="active-terminal"] [data-testid="terminal"][data-state="open"]').waitFor({ timeout: 30_000 });
  await page.getByTestId('active-terminal').getByTestId('terminal').click();
  await page.keyboard.type(line + '\n');
}

beforeAll(async () => {
  dashboard = await startDashboard('docker', 'docker-dashboard-admin-1', { docker: { hosts: [engine.host], tlsDir: null, scalingGroup: 'docker', gpus: 0 } });
  webUrl = dashboard.webUrl;
  const email = 'container-user@example.com';
  await createUser(dashboard.berth.app.db, { email, username: 'container-user', password: USER_PASSWORD, domainName: 'default', role: 'user', keypair: { isAdmin: false, rateLimit: 10000 } });
  browser = await launchWatchedBrowser(pageErrors);
  page = browser.page;
  await signIn(page, webUrl, email, USER_PASSWORD);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

describe('a container session from the dashboard', () => {
  it('launches the engine image on the docker scaling group: the terminal is a shell in the container', async () => {
    await launch(engine.images.python, 'in-a-container');
    // Docker puts /.dockerenv into every container; the host has none.
    await typeInTerminal('test -e /.dockerenv && echo container-$((6*7)); echo kept > kept.txt');
    await waitForTerminal('container-42');
  });

  it('runs code in the console', async () => {
    await page.getByRole('tab', { name: 'Console' }).click();
    await page.getByTestId('console-code').fill('import platform\nprint("py", 6 * 7, platform.python_version() != "")');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('[data-testid="console-run"][data-status="finished"]').last().waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('console-output').last().innerText()).toContain('py 42 True');
  });

  it('refuses a tag Docker would refuse before sending anything', async () => {
    await page.getByRole('button', { name: 'Save as image' }).click();
    await page.getByLabel('Tag').fill('-bad tag');
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('saves the session as an image on the engine and launches it from "Your images" with the files it kept', async () => {
    await page.getByRole('button', { name: 'Save as image' }).click();
    await page.getByLabel('Tag').fill(TAG);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const saved = page.getByTestId('commit-saved');
    await saved.waitFor({ timeout: 120_000 });
    const image = await saved.locator('strong').innerText();
    expect(image.endsWith(`:${TAG}`)).toBe(true);
    // A real image on the engine, not only a row in Berth's catalog.
    expect((await docker.getImage(image).inspect()).Config.Labels['ai.backend.runtime-type']).toBe('python');

    await launch(image, 'from-the-saved-image');
    await page.getByTestId('active-terminal').waitFor();
    await typeInTerminal('echo "found-$(cat kept.txt)"');
    await waitForTerminal('found-kept');
  });

  it('rendered every page without script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
