/**
 * Operating Berth in a real browser (issue 14): a superadmin changes a keypair policy's idle timeout on the
 * Resource policies page and finds that change on the Audit log page; a session under that policy shows the time it
 * has left; the dashboard answers /api/healthz unsigned. Nothing the browser receives holds a key.
 *
 * Needs `npx next build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Berth } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { fillSignIn, launchWatchedBrowser, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-operations-123';

let dashboard: Dashboard;
let berth: Berth;
let browser: WatchedBrowser;
let page: Page;
let webUrl: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  dashboard = await startDashboard('operations', ADMIN_PASSWORD);
  ({ berth, webUrl } = dashboard);
  browser = await launchWatchedBrowser(pageErrors);
  ({ page } = browser);
  await page.goto(`${webUrl}/login`);
  await fillSignIn(page, berth.bootstrap.credentials!.email, ADMIN_PASSWORD);
  await page.waitForURL(`${webUrl}/`);
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

it('answers /api/healthz unsigned', async () => {
  const res = await fetch(`${webUrl}/api/healthz`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: 'ok' });
});

it('edits the idle timeout of a policy, and the change shows in the audit log', async () => {
  await page.goto(`${webUrl}/admin/resource-policies`);
  const table = page.getByTestId('resource-policies-table');
  await table.getByRole('row', { name: /default/ }).waitFor();
  await page.getByRole('button', { name: 'Edit idle limits of default' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Idle timeout (seconds)').fill('-3');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByText('Whole seconds, 0 or more (0: never).').waitFor();
  await dialog.getByLabel('Idle timeout (seconds)').fill('3600');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.getByTestId('toast').filter({ hasText: 'Saved the idle limits of default.' }).waitFor();
  await table.getByRole('row', { name: /default/ }).filter({ hasText: '1h' }).waitFor();
  const stored = await berth.app.db.selectFrom('keypair_resource_policies').select('idle_timeout').where('name', '=', 'default').executeTakeFirstOrThrow();
  expect(Number(stored.idle_timeout)).toBe(3600);

  await page.getByRole('tab', { name: 'Audit log' }).click();
  await page.waitForURL(`${webUrl}/admin/audit-log`);
  const log = page.getByTestId('audit-log-table');
  const row = log.getByRole('row').filter({ hasText: 'modify_keypair_resource_policy' }).first();
  await row.waitFor();
  expect(await row.innerText()).toContain(berth.bootstrap.credentials!.email);
  expect(await row.innerText()).toContain('200');
  await page.getByLabel('Audit log filter').fill('action == "modify_keypair_resource_policy"');
  await page.getByRole('button', { name: 'Apply' }).click();
  await log.getByRole('row').filter({ hasText: 'POST /auth/authorize' }).waitFor({ state: 'detached' });
  await page.getByLabel('Audit log filter').fill('no_such_field == "x"');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByTestId('problem').filter({ hasText: 'unknown field no_such_field' }).waitFor();
});

it('shows a session the time it has left before the idle timeout', async () => {
  const creds = berth.bootstrap.credentials!;
  const client = new BerthClient({ endpoint: berth.managerUrl, accessKey: creds.accessKey, secretKey: creds.secretKey });
  const session = await client.call('POST', '/session', { body: { name: 'idle-shown', image: 'shell', group: 'default' } });
  try {
    await page.goto(`${webUrl}/sessions/${session.sessionId}`);
    const left = page.getByTestId('idle-time-left');
    await left.waitFor();
    expect(await left.innerText()).toMatch(/^(59m|1h)( \d+s)? left unless used \(ends after 1h idle\)$|^\d+m left unless used \(ends after 1h idle\)$/);
  } finally {
    // Leave the page first: its terminal would otherwise try to reconnect to the ending session (a console error).
    await page.goto('about:blank');
    await client.call('DELETE', '/session/idle-shown');
    client.close();
  }
  const seen = JSON.stringify(await browser.recorder.settled());
  expect(seen).not.toContain(creds.secretKey);
  expect(seen).not.toContain(creds.accessKey);
  expect(pageErrors).toEqual([]);
});
