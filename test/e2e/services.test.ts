/**
 * The model services pages in a real browser: a user with a model folder (a model definition and a tiny Python
 * server, put there through the API) creates a token-protected service from the dialog, sees it listed with its
 * endpoint, opens its page and waits for a healthy route, issues a token there and calls the endpoint with it,
 * scales to 2 and sees the desired count change, and deletes the service after the confirmation. Nothing the
 * browser received holds a key.
 *
 * Needs `npx next build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Berth } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { createUser } from '../../server/accounts/create-user';
import { screenshotDark } from '../helpers/browser';
import { MODEL_DEFINITION, MODEL_SERVER_PY, send, uploadText } from '../helpers/model-folder';
import { launchWatchedBrowser, screenshotDir, signIn, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';

const USER = { email: 'server@example.com', username: 'server', password: 'e2e-services-user-123' };
const MODEL = 'answer-model';
const SERVICE = 'answer';


let dashboard: Dashboard;
let berth: Berth;
let webUrl: string;
let browser: WatchedBrowser;
let page: Page;
let api: BerthClient;
let serviceId: string;
let endpoint: string;
const keys: string[] = [];
const pageErrors: string[] = [];

const upload = (folder: string, file: string, content: string) => uploadText(api, folder, file, content);

beforeAll(async () => {
  dashboard = await startDashboard('services', 'e2e-services-admin-789');
  ({ berth, webUrl } = dashboard);
  keys.push(berth.bootstrap.credentials!.accessKey, berth.bootstrap.credentials!.secretKey);
  const created = await createUser(berth.app.db, {
    email: USER.email,
    username: USER.username,
    password: USER.password,
    domainName: 'default',
    role: 'user',
    keypair: { isAdmin: false, rateLimit: 10000 },
  });
  keys.push(created.accessKey, created.secretKey);
  api = new BerthClient({ endpoint: berth.managerUrl, accessKey: created.accessKey, secretKey: created.secretKey });
  await api.call('POST', '/folders', { body: { name: MODEL, usage_mode: 'model' } });
  await upload(MODEL, 'server.py', MODEL_SERVER_PY);
  await upload(MODEL, 'model-definition.yaml', MODEL_DEFINITION);
  // A general folder is not offered as a model.
  await api.call('POST', '/folders', { body: { name: 'plain-data', usage_mode: 'general' } });

  browser = await launchWatchedBrowser(pageErrors);
  page = browser.page;
  await signIn(page, webUrl, USER.email, USER.password);
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

describe('model services in the browser', () => {
  it('shows the empty state, then creates a service from the dialog', async () => {
    await page.getByRole('link', { name: 'Services', exact: true }).click();
    await page.waitForURL(`${webUrl}/services`);
    await page.getByText('No model services yet').waitFor();
    await page.getByRole('button', { name: 'New service' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('service-name-input').fill(SERVICE);
    await dialog.getByTestId('service-model-select').click();
    await page.getByRole('option', { name: MODEL }).waitFor();
    expect(await page.getByRole('option', { name: 'plain-data' }).count()).toBe(0);
    await page.getByRole('option', { name: MODEL }).click();
    await dialog.getByTestId('service-replicas-input').fill('1');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/services\/[0-9a-f-]{36}$/);
    serviceId = page.url().split('/').pop()!;
    await page.getByRole('heading', { name: SERVICE }).waitFor();
  });

  it('lists the service with its endpoint and access, and opens its page', async () => {
    await page.getByRole('link', { name: 'Services', exact: true }).first().click();
    await page.waitForURL(`${webUrl}/services`);
    const row = page.locator(`[data-testid="service-row"][data-service="${SERVICE}"]`);
    await row.waitFor();
    endpoint = (await row.getByTestId('service-endpoint').innerText()).trim();
    expect(endpoint).toBe(`${berth.appsUrl}/service/${serviceId}`);
    expect(await row.getByTestId('service-access').innerText()).toContain('Token');
    await row.getByRole('link', { name: SERVICE }).click();
    await page.waitForURL(`${webUrl}/services/${serviceId}`);
    await page.getByTestId('service-model').filter({ hasText: MODEL }).waitFor();
  });

  it('shows a healthy route once the model server passes its check', async () => {
    // The page polls while routes provision; the deadline is the locator's.
    await page.getByTestId('route-row').first().waitFor({ timeout: 90_000 });
    expect(await page.getByTestId('service-routes').getAttribute('data-active')).toBe('1');
    expect(await page.getByTestId('service-routes').innerText()).toBe('1 / 1 ready');
    expect(await page.getByTestId('route-row').first().innerText()).toContain('1');
    await screenshotDark(page, path.join(screenshotDir, 'services.png'), { ready: '[data-testid="route-row"]' });
  });

  it('issues a token, shown once, that calls the endpoint', async () => {
    expect((await send('GET', `${endpoint}/predict`)).status).toBe(401);
    await page.getByRole('button', { name: 'Issue token' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('token-duration-input').fill('30d');
    await dialog.getByRole('button', { name: 'Issue', exact: true }).click();
    const token = (await dialog.getByTestId('service-token').innerText()).trim();
    expect(token.length).toBeGreaterThan(20);
    await dialog.getByRole('button', { name: 'Copy token' }).waitFor();
    const res = await send('GET', `${endpoint}/predict?x=1`, { Authorization: `Bearer ${token}` });
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ answer: 42, path: '/predict?x=1' });
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('scales to 2 and shows the new desired count', async () => {
    await page.getByRole('button', { name: 'Scale', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('scale-input').fill('2');
    await dialog.getByRole('button', { name: 'Scale', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid="service-desired"]', { hasText: '2' }).waitFor();
    await page.getByTestId('service-routes').filter({ hasText: '/ 2' }).waitFor();
    const info = await api.call('GET', `/services/${serviceId}`);
    expect(info.desired_session_count).toBe(2);
  });

  it('deletes the service after the confirmation', async () => {
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Its sessions stop').waitFor();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL(`${webUrl}/services`);
    await page.getByText('No model services yet').waitFor();
    expect(await api.call('GET', '/services')).toEqual([]);
  });

  it('never hands an access or secret key to the browser', async () => {
    await page.goto('about:blank');
    const responses = await browser.recorder.settled();
    const readable = responses.filter((r) => r.body !== null && r.url.startsWith(webUrl));
    expect(readable.some((r) => r.url.includes('/api/manager/services'))).toBe(true);
    expect(readable.some((r) => r.resourceType === 'script')).toBe(true);
    for (const { url, body } of readable) {
      for (const key of keys) expect(body!.includes(key), `a key in ${url}`).toBe(false);
    }
  });

  it('rendered every page without script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
