/**
 * Settings → Command line: a form submission downloads the signed-in user's keypair as the CLI's credentials file
 * (what a single sign-on user, who has no password for `berth login`, uses); a page script asking for the same
 * route gets a refusal, not the keys.
 *
 * Needs `npx next build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BerthClient } from '../../server/client/client';
import { launchWatchedBrowser, signIn, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-cli-credentials-123';
let dashboard: Dashboard;
let browser: WatchedBrowser;
const pageErrors: string[] = [];

beforeAll(async () => {
  dashboard = await startDashboard('cli-credentials', ADMIN_PASSWORD);
  browser = await launchWatchedBrowser(pageErrors);
  const creds = dashboard.berth.bootstrap.credentials!;
  await signIn(browser.page, dashboard.webUrl, creds.email, ADMIN_PASSWORD);
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

describe('CLI credentials from Settings', () => {
  it('downloads the signed-in keypair as a file the CLI signs with', async () => {
    const { page } = browser;
    await page.goto(`${dashboard.webUrl}/settings`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('cli-credentials-download').click()]);
    expect(download.suggestedFilename()).toBe('berth-credentials.json');
    const saved = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    const creds = dashboard.berth.bootstrap.credentials!;
    expect(saved).toEqual({ endpoint: expect.stringMatching(/^http:\/\//), accessKey: creds.accessKey, secretKey: creds.secretKey });
    const client = new BerthClient({ endpoint: dashboard.berth.managerUrl, accessKey: saved.accessKey, secretKey: saved.secretKey });
    expect((await client.call<{ global_role: string }>('GET', '/auth/role')).global_role).toBe('superadmin');
    client.close();
    expect(pageErrors).toEqual([]);
  });

  it('refuses a page script that asks for the same file', async () => {
    const answer = await browser.page.evaluate(async () => {
      const res = await fetch('/api/auth-extra/cli-credentials', { method: 'POST' });
      return { status: res.status, body: await res.text() };
    });
    expect(answer.status).toBe(403);
    expect(answer.body).not.toContain(dashboard.berth.bootstrap.credentials!.secretKey);
  });
});
