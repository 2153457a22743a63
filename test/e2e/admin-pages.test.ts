/**
 * The statistics and administration pages in a real browser, over one Berth with a superadmin and a plain user
 * who ran (and ended) one session: the user sees their own charts and is refused on admin URLs; the superadmin
 * creates a keypair policy and applies it to the user's keypair, after which a session over its limit is refused;
 * creates a project and adds the user, who then launches in it from the launcher; terminates that session from
 * the all-sessions page; exports the usage CSV; sets a folder's quota scope; creates and deactivates a domain; aliases an image and a session starts by the alias; imports an image.
 *
 * Needs `npx next build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import type { Berth } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { createUser } from '../../server/accounts/create-user';
import { screenshotDark } from '../helpers/browser';
import { launchWatchedBrowser, screenshotDir, signIn, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-admin-pages-123';
const USER = { email: 'ada@example.com', password: 'e2e-admin-pages-user-456' };

let dashboard: Dashboard;
let berth: Berth;
let browser: WatchedBrowser;
let page: Page;
let webUrl: string;
let adminEmail: string;
let admin: BerthClient;
let user: BerthClient;
const pageErrors: string[] = [];

async function toast(text: string): Promise<void> {
  await page.getByTestId('toast').filter({ hasText: text }).waitFor();
}

/**
 * Signs in as `email` whoever was signed in before. The dashboard's session lives only in its cookies, so clearing
 * them signs out whatever the page shows (a dialog, a 403 page without the menu's Sign out button).
 */
async function signInAs(email: string, password: string): Promise<void> {
  await page.context().clearCookies();
  await signIn(page, webUrl, email, password);
}

async function sessionRow(name: string) {
  return berth.app.db.selectFrom('sessions as s').innerJoin('groups as g', 'g.id', 's.group_id').select(['s.id', 's.status', 's.image', 'g.name as project']).where('s.name', '=', name).executeTakeFirst();
}

beforeAll(async () => {
  dashboard = await startDashboard('admin-pages', ADMIN_PASSWORD);
  ({ berth, webUrl } = dashboard);
  const creds = berth.bootstrap.credentials!;
  adminEmail = creds.email;
  admin = new BerthClient({ endpoint: berth.managerUrl, accessKey: creds.accessKey, secretKey: creds.secretKey });
  const created = await createUser(berth.app.db, { email: USER.email, username: 'ada', password: USER.password, domainName: 'default', role: 'user', keypair: { isAdmin: false, rateLimit: 10000 } });
  user = new BerthClient({ endpoint: berth.managerUrl, accessKey: created.accessKey, secretKey: created.secretKey });
  // One real session that ran and ended: what the statistics and the usage report show.
  await user.call('POST', '/session', { body: { name: 'counted', image: 'shell', config: { resources: { cpu: 1, mem: '256m' } } } });
  await user.call('DELETE', '/session/counted');
  await vi.waitFor(async () => expect((await sessionRow('counted'))?.status).toBe('TERMINATED'), { timeout: 30_000, interval: 200 });
  browser = await launchWatchedBrowser(pageErrors);
  ({ page } = browser);
});

afterAll(async () => {
  await browser?.close();
  admin?.close();
  user?.close();
  await dashboard?.stop();
});

describe('statistics and administration pages', () => {
  it('shows a user their own charts and refuses them the admin pages', async () => {
    await signInAs(USER.email, USER.password);
    await page.getByRole('link', { name: 'Statistics' }).click();
    await page.waitForURL(`${webUrl}/statistics`);
    const charts = page.getByTestId('user-chart');
    await charts.nth(5).waitFor();
    expect(await charts.count()).toBe(6);
    expect(await charts.filter({ hasText: 'Sessions' }).getByTestId('chart-peak').innerText()).toBe('Peak 1');
    expect(await charts.filter({ hasText: 'CPU cores' }).getByTestId('chart-peak').innerText()).toBe('Peak 1');
    expect(await page.getByTestId('cluster-chart').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Administration' }).count()).toBe(0);

    for (const url of ['/admin/images', '/admin/sessions', '/admin/projects']) {
      await page.goto(`${webUrl}${url}`);
      await page.getByTestId('forbidden').waitFor();
      expect(await page.getByTestId('data-row').count()).toBe(0);
    }
  });

  it('lets an admin create a keypair policy and apply it, after which a session over its limit is refused', async () => {
    await signInAs(adminEmail, ADMIN_PASSWORD);
    await page.goto(`${webUrl}/admin/resource-policies`);
    await page.getByRole('button', { name: 'New keypair policy' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('bad name!');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText('Letters, digits, dots, dashes and underscores; at most 64.').waitFor();
    await dialog.getByLabel('Name').fill('tight');
    await dialog.getByLabel('Containers per session').fill('1');
    await dialog.getByLabel('Concurrent sessions').fill('2');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await toast('Saved the keypair policy tight.');

    await page.goto(`${webUrl}/admin/users/${encodeURIComponent(USER.email)}`);
    await page.getByRole('button', { name: /^Resource policy of / }).click();
    await page.getByRole('combobox', { name: 'Keypair resource policy' }).click();
    await page.getByRole('option', { name: 'tight' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Apply' }).click();
    await toast('Applied the policy tight.');
    const keypair = await berth.app.db.selectFrom('keypairs as k').innerJoin('users as u', 'u.uuid', 'k.user_id').select('k.resource_policy').where('u.email', '=', USER.email).executeTakeFirstOrThrow();
    expect(keypair.resource_policy).toBe('tight');

    const refused = await user.request('POST', '/session', { body: { name: 'too-big', image: 'shell', cluster_size: 2, enqueueOnly: true } });
    expect(refused.status).toBe(400);
    expect((await refused.json()).detail).toContain('at most 1 kernels');

    await page.goto(`${webUrl}/admin/resource-policies`);
    await page.getByTestId('resource-policies-table').getByRole('row', { name: /tight/ }).filter({ hasText: '1 keypair' }).waitFor();
  });

  it('lets an admin create a project and add a member, who then launches a session in it', async () => {
    await page.goto(`${webUrl}/admin/projects`);
    await page.getByRole('button', { name: 'New project' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('research');
    await dialog.getByLabel('Description').fill('Lab work');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await toast('Saved the project research.');
    await page.getByRole('button', { name: 'Members of research' }).click();
    await page.getByLabel("User's email").fill('nobody@example.com');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('dialog').getByTestId('problem').filter({ hasText: 'No user nobody@example.com' }).waitFor();
    await page.getByLabel("User's email").fill(USER.email);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByTestId('members').getByText(USER.email).waitFor();
    await page.getByRole('button', { name: 'Close' }).click();
    await page.screenshot({ path: path.join(screenshotDir, 'admin-projects.png') });

    await signInAs(USER.email, USER.password);
    await page.goto(`${webUrl}/sessions/new`);
    await page.getByTestId('project-select').click();
    await page.getByRole('option', { name: 'research' }).click();
    await page.getByLabel('Session name').fill('in-research');
    await page.getByRole('button', { name: 'Launch', exact: true }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/);
    expect((await sessionRow('in-research'))?.project).toBe('research');
  });

  it('lets an admin terminate a user\'s session from the all-sessions page, filtered by user and project', async () => {
    await signInAs(adminEmail, ADMIN_PASSWORD);
    await page.goto(`${webUrl}/admin/sessions?user=ada&project=research`);
    const table = page.getByTestId('all-sessions-table');
    await table.getByRole('row', { name: /in-research/ }).waitFor();
    expect(await table.getByTestId('data-row').count()).toBe(1);
    await page.getByRole('checkbox', { name: 'Select in-research' }).check();
    await page.getByRole('button', { name: 'Terminate 1' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Terminate' }).click();
    await toast('Terminating 1 session.');
    await vi.waitFor(async () => expect((await sessionRow('in-research'))?.status).toMatch(/TERMINAT/), { timeout: 30_000, interval: 200 });
  });

  it('shows the cluster and the usage per project to a superadmin, with a CSV export', async () => {
    await page.goto(`${webUrl}/statistics`);
    await page.getByTestId('cluster-chart').nth(5).waitFor();
    const usage = page.getByTestId('project-usage-table');
    await usage.getByRole('row', { name: /^default default / }).waitFor();
    await usage.getByRole('row', { name: /^research default / }).waitFor();
    // The superadmin ran nothing: their own section says so instead of drawing flat lines.
    await page.locator('#user-stats').getByText('No ended sessions in the last week').waitFor();
    await page.screenshot({ path: path.join(screenshotDir, 'statistics.png'), fullPage: true });
    await page.locator('#cluster-stats').scrollIntoViewIfNeeded();
    await screenshotDark(page, path.join(screenshotDir, 'statistics-dark.png'), { ready: '[data-testid="cluster-chart"]' });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^berth-usage-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(lines[0]).toBe('Project,Domain,Containers,CPU allocated,Memory allocated (bytes),GPU allocated,I/O read (bytes),I/O written (bytes),Disk used (bytes)');
    const row = lines.find((l) => l.startsWith('default,default,'));
    expect(row?.split(',').slice(2, 5)).toEqual(['1', '1', String(256 * 1024 * 1024)]);
    expect(lines.some((l) => l.startsWith('research,default,1,'))).toBe(true);
  });
  it('shows storage hosts, folders and a quota scope, whose limit a superadmin sets', async () => {
    await user.call('POST', '/folders', { body: { name: 'e2e-data', cloneable: false } });
    await page.goto(`${webUrl}/admin/storage`);
    await page.getByTestId('storage-hosts-table').getByTestId('data-row').first().getByText(/used/).waitFor();
    await page.getByLabel("Owner's email").fill(USER.email);
    await page.getByLabel('Search by name').fill('e2e-data');
    const folders = page.getByTestId('storage-folders-table');
    await folders.getByRole('row', { name: /e2e-data/ }).getByText(USER.email).waitFor();
    expect(await folders.getByTestId('data-row').count()).toBe(1);
    await page.getByRole('button', { name: 'Quota scope of e2e-data' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('quota-scope').getByText('Limit: none').waitFor();
    await dialog.getByLabel('New limit (GiB)').fill('2');
    await dialog.getByRole('button', { name: 'Save limit' }).click();
    await toast('Saved the quota.');
    const row = await berth.app.db.selectFrom('vfolders').select(['host', 'quota_scope_id']).where('name', '=', 'e2e-data').executeTakeFirstOrThrow();
    const scope = await admin.call('POST', '/admin/gql', {
      body: { query: 'query($h: String!, $s: String!) { quota_scope(storage_host_name: $h, quota_scope_id: $s) { details { hard_limit_bytes } } }', variables: { h: row.host, s: row.quota_scope_id } },
    });
    expect(Number(scope.data.quota_scope.details.hard_limit_bytes)).toBe(2 * 1024 ** 3);
  });

  it('lets a superadmin create a domain and deactivate it behind a confirmation', async () => {
    await page.goto(`${webUrl}/admin/projects`);
    await page.getByRole('button', { name: 'New domain' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('lab');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await toast('Saved the domain lab.');
    await page.getByTestId('domains-table').getByRole('row', { name: /lab/ }).getByText('Active').waitFor();
    await page.getByRole('button', { name: 'Deactivate domain lab' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click();
    await toast('Deactivated the domain lab.');
    const domain = await berth.app.db.selectFrom('domains').select('is_active').where('name', '=', 'lab').executeTakeFirstOrThrow();
    expect(domain.is_active).toBe(false);
  });

  it('lets an admin alias an image, and a session starts by the alias', async () => {
    await page.goto(`${webUrl}/admin/images`);
    await page.getByRole('button', { name: 'Add an alias for berth/shell:5.2' }).click();
    await page.getByRole('dialog').getByLabel('Alias').fill('e2e-sh');
    await page.getByRole('dialog').getByRole('button', { name: 'Add alias' }).click();
    await toast('Added the alias e2e-sh.');
    await page.getByTestId('images-table').getByRole('row', { name: /berth\/shell:5\.2/ }).getByText('e2e-sh').waitFor();
    await page.getByTestId('toast').getByRole('button', { name: 'Close' }).click();
    await page.getByTestId('toast').waitFor({ state: 'hidden' });
    await page.screenshot({ path: path.join(screenshotDir, 'admin-images.png'), animations: 'disabled' });
    await screenshotDark(page, path.join(screenshotDir, 'admin-images-dark.png'), { ready: '[data-testid="images-table"]' });

    const created = await admin.call('POST', '/session', { body: { name: 'by-alias', image: 'e2e-sh', enqueueOnly: true } });
    expect(created.sessionId).toBeTruthy();
    expect((await sessionRow('by-alias'))?.image).toBe('berth/shell:5.2');
    await admin.call('DELETE', '/session/by-alias?forced=true');
  });

  it('imports an image through the form, showing a refusal in place first', async () => {
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Source image').fill('registry.example.com/nobody/nothing:1.0');
    await dialog.getByLabel('Target image').fill('myteam/py-e2e:1.0');
    await dialog.getByLabel('Display name').fill('Python (e2e)');
    await dialog.getByRole('button', { name: 'Start import' }).click();
    await dialog.getByTestId('problem').filter({ hasText: 'cannot pull' }).waitFor();
    await dialog.getByLabel('Source image').fill('python');
    await dialog.getByRole('button', { name: 'Start import' }).click();
    await toast('Import started in session image-import-');
    await vi.waitFor(async () => expect(await berth.app.db.selectFrom('images').select('id').where('name', '=', 'myteam/py-e2e:1.0').executeTakeFirst()).toBeTruthy(), { timeout: 60_000, interval: 250 });
    expect(pageErrors).toEqual([]);
  });

  it('shows why a session waits and where it is in line: the session list and page to its owner, the queue page to a superadmin', async () => {
    await user.call('POST', '/session', { body: { name: 'queued-big', image: 'shell', enqueueOnly: true, config: { resources: { cpu: 100000 } } } });
    await vi.waitFor(async () => expect((await user.call('GET', '/session/queued-big')).statusData.scheduler?.retries ?? 0).toBeGreaterThanOrEqual(1), { timeout: 30_000, interval: 200 });
    const reason = 'No agent has room for it now (it needs cpu 100000';
    // Another pending session (the image import's) may be ahead of it: the words follow the position the API gives.
    const { queuePosition } = await user.call('GET', '/session/queued-big');
    const words = `${queuePosition === 1 ? 'next in line' : `number ${queuePosition} in line`}; start time unknown`;
    try {
      await signInAs(USER.email, USER.password);
      await page.goto(`${webUrl}/sessions`);
      const place = page.locator('[data-testid="session-row"][data-session-name="queued-big"]').getByTestId('queue-place');
      await place.waitFor();
      expect(await place.innerText()).toContain(reason);
      expect(await place.innerText()).toContain(words);
      await page.getByRole('link', { name: 'queued-big' }).click();
      expect(await page.getByTestId('status-info').innerText()).toContain(`Waiting: ${reason}`);
      expect(await page.getByTestId('queue-place').innerText()).toBe(`In the queue: ${words}.`);

      await signInAs(adminEmail, ADMIN_PASSWORD);
      await page.goto(`${webUrl}/admin/queue`);
      const group = page.getByTestId('queue-group').filter({ hasText: 'default' });
      await group.waitFor();
      const text = await group.innerText();
      expect(text).toContain('(FIFO)');
      expect(text).toMatch(/The head asks for .*; the most any one agent has free: cpu /);
      expect(text).toContain(`${USER.email} 1 in line`);
      expect(text).toContain('queued-big');
      expect(text).toContain(reason);
    } finally {
      await user.call('DELETE', '/session/queued-big');
    }
  });
});
