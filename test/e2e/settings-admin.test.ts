/**
 * Settings, administration, the summary and the signed-out account flows in a real browser: Berth runs
 * in-process on the built dashboard; Debian's Chromium changes a full name, generates an SSH key, adds a dotfile;
 * an admin creates a user who then signs in, freezes and unfreezes the manager behind a confirmation and edits the
 * configuration store; a plain user sees no admin entries and is refused on /admin URLs; an expired password is
 * changed at sign-in; a visitor signs up. Nothing the browser receives may hold an access or secret key.
 *
 * Needs `npx next build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Berth } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { fillSignIn, launchWatchedBrowser, screenshotDir, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-settings-admin-123';
const NEW_USER = { email: 'grace@example.com', fullName: 'Grace Hopper', password: 'first-password-1' };
const RENEWED_PASSWORD = 'second-password-2';
const SIGNUP_USER = { email: 'linus@example.com', password: 'signup-password-3' };
const FULL_NAME = 'Ada Lovelace';
const MAX_AGE_KEY = 'auth/max_password_age';

let dashboard: Dashboard;
let berth: Berth;
let browser: WatchedBrowser;
let page: Page;
let webUrl: string;
let admin: { email: string; accessKey: string; secretKey: string };
let recorder: WatchedBrowser['recorder'];
const previousSignup = process.env.BERTH_ALLOW_SIGNUP;
/** Script errors and console errors of the dashboard tab (failed loads, such as a refused request, aside). */
const pageErrors: string[] = [];

async function signIn(username: string, password: string): Promise<void> {
  await page.goto(`${webUrl}/login`);
  await fillSignIn(page, username, password);
}

async function signInAndWait(username: string, password: string): Promise<void> {
  await signIn(username, password);
  await page.waitForURL(`${webUrl}/`);
}

async function signOut(): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${webUrl}/login`);
}

async function toast(text: string): Promise<void> {
  await page.getByTestId('toast').filter({ hasText: text }).waitFor();
}

/** Every active and inactive key of a user, read from the database, for the no-key check. */
async function keysOf(email: string): Promise<string[]> {
  const rows = await berth.app.db
    .selectFrom('keypairs as k')
    .innerJoin('users as u', 'u.uuid', 'k.user_id')
    .select(['k.access_key', 'k.secret_key'])
    .where('u.email', '=', email)
    .execute();
  return rows.flatMap((r) => [r.access_key, r.secret_key]);
}

beforeAll(async () => {
  // The dashboard reads the signup switch from its environment (the same process here).
  process.env.BERTH_ALLOW_SIGNUP = '1';
  dashboard = await startDashboard('settings', ADMIN_PASSWORD, { allowSignup: true });
  ({ berth, webUrl } = dashboard);
  admin = berth.bootstrap.credentials!;
  browser = await launchWatchedBrowser(pageErrors);
  ({ page, recorder } = browser);
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
  if (previousSignup === undefined) delete process.env.BERTH_ALLOW_SIGNUP;
  else process.env.BERTH_ALLOW_SIGNUP = previousSignup;
});

describe('settings', () => {
  it('changes the full name and shows it on the summary', async () => {
    await signInAndWait(admin.email, ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(`${webUrl}/settings`);
    const fullName = page.getByLabel('Full name');
    await fullName.fill(FULL_NAME);
    await page.getByRole('button', { name: 'Save name' }).click();
    await toast('Your full name is saved.');

    await page.reload();
    await expect(page.getByLabel('Full name').inputValue()).resolves.toBe(FULL_NAME);
    await page.getByRole('link', { name: 'Summary' }).click();
    const shown = page.getByTestId('user-full-name');
    await shown.filter({ hasText: FULL_NAME }).waitFor();
    const stored = await berth.app.db.selectFrom('users').select('full_name').where('email', '=', admin.email).executeTakeFirstOrThrow();
    expect(stored.full_name).toBe(FULL_NAME);
  });

  it('checks a password change in the form before sending it', async () => {
    await page.goto(`${webUrl}/settings`);
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByText('At least 8 characters.', { exact: true }).waitFor();
    await page.getByLabel('Repeat the new password').fill('different');
    await page.getByText('The two new passwords do not match.').waitFor();
    await page.getByLabel('Current password').fill('not-the-password');
    await page.getByLabel('New password', { exact: true }).fill('a-good-new-password');
    await page.getByLabel('Repeat the new password').fill('a-good-new-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    // The manager's refusal of the wrong current password, as its problem title and detail.
    const problem = page.locator('#password').getByTestId('problem');
    await problem.waitFor();
    expect(await problem.innerText()).toContain('Old password mismatch.');
  });

  it('generates an SSH keypair, offers the private key once, and shows the public key', async () => {
    await page.getByRole('button', { name: 'Generate a keypair' }).click();
    const privateKey = page.getByTestId('ssh-private-key');
    await privateKey.waitFor();
    expect(await privateKey.innerText()).toContain('BEGIN OPENSSH PRIVATE KEY');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download' }).click();
    expect((await download).suggestedFilename()).toBe('berth_id_ed25519');
    await page.getByRole('button', { name: 'Done' }).click();
    await privateKey.waitFor({ state: 'detached' });

    const publicKey = page.getByTestId('ssh-public-key');
    await publicKey.waitFor();
    const shown = await publicKey.innerText();
    expect(shown).toMatch(/^ssh-ed25519 [A-Za-z0-9+/=]+ /);
    const stored = await berth.app.db.selectFrom('keypairs').select('ssh_public_key').where('access_key', '=', admin.accessKey).executeTakeFirstOrThrow();
    expect(stored.ssh_public_key?.trim()).toBe(shown.trim());
    await page.getByRole('button', { name: 'Copy public key' }).waitFor();
  });

  it('adds a dotfile after refusing an invalid path and permission in the editor', async () => {
    await page.getByRole('button', { name: 'Add dotfile' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Path').fill('../outside');
    await dialog.getByText('The path must not contain “..”').waitFor();
    await dialog.getByLabel('Path').fill('.vimrc');
    await dialog.getByLabel('Permission').fill('999');
    await dialog.getByLabel('Content').fill('set number\nsyntax on\n');
    await dialog.getByRole('button', { name: 'Create dotfile' }).click();
    await dialog.getByText('Three octal digits (0–7)').waitFor();
    await dialog.getByLabel('Permission').fill('600');
    await dialog.getByText('Octal: rw-------').waitFor();
    await dialog.getByRole('button', { name: 'Create dotfile' }).click();
    await toast('.vimrc is added.');

    const table = page.getByTestId('dotfiles');
    await table.getByText('/home/work/.vimrc').waitFor();
    expect(await table.innerText()).toContain('600');
    const stored = await page.evaluate(() => fetch('/api/manager/user-config/dotfiles').then((r) => r.json()));
    expect(stored).toEqual([{ path: '.vimrc', permission: '600', data: 'set number\nsyntax on\n' }]);

    // A duplicate is refused before sending; the bootstrap script shows its size against the 64 KiB limit.
    await page.getByRole('button', { name: 'Add dotfile' }).click();
    await page.getByRole('dialog').getByLabel('Path').fill('/home/work/.vimrc');
    await page.getByRole('dialog').getByText('You already have .vimrc').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('textbox', { name: 'Script' }).fill('echo ready\n');
    expect(await page.getByTestId('bootstrap-size').innerText()).toBe('11 B of 64 KiB');
    await page.getByRole('button', { name: 'Save script' }).click();
    await toast('The bootstrap script is saved.');

    // The whole page, tall enough for every card, without the messages of the steps above.
    await page.reload();
    await page.getByTestId('ssh-public-key').waitFor();
    await page.getByTestId('dotfiles').waitFor();
    await page.getByTestId('bootstrap-size').waitFor();
    await page.setViewportSize({ width: 1280, height: 1720 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(screenshotDir, 'settings.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('administration', () => {
  it('creates a user on the admin page, who can then sign in', async () => {
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.waitForURL(`${webUrl}/admin/users`);
    await page.getByTestId('users-table').getByText(admin.email).waitFor();

    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Email/).fill(NEW_USER.email);
    await dialog.getByLabel('Full name').fill(NEW_USER.fullName);
    await dialog.getByLabel('Initial password').fill('short');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await dialog.getByText('At least 8 characters.').waitFor();
    await dialog.getByLabel('Initial password').fill(NEW_USER.password);
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await toast(`${NEW_USER.email} can sign in now.`);
    await dialog.waitFor({ state: 'detached' });
    const table = page.getByTestId('users-table');
    await table.getByText(NEW_USER.email).waitFor();
    await page.getByTestId('toast').getByRole('button', { name: 'Close' }).click();
    await page.getByTestId('toast').waitFor({ state: 'detached' });
    await page.screenshot({ path: path.join(screenshotDir, 'admin-users.png') });

    // Search narrows the list.
    await page.getByLabel('Search').fill('grace');
    await table.getByText(admin.email).waitFor({ state: 'detached' });
    expect(await table.locator('tbody tr').count()).toBe(1);
    // The pager under the table counts what the search found.
    await page.getByText('1–1 of 1', { exact: true }).waitFor();

    // The user's page lists their keypair by a hint, never by the key.
    await table.getByRole('link', { name: NEW_USER.email }).click();
    await page.waitForURL(`${webUrl}/admin/users/${encodeURIComponent(NEW_USER.email)}`);
    const keypairs = page.getByTestId('keypairs');
    await keypairs.getByText(/^AK…[A-Z0-9]{4}/).waitFor();
    const [accessKey] = await keysOf(NEW_USER.email);
    expect(await keypairs.innerText()).toContain(`AK…${accessKey.slice(-4)}`);

    // The manager accepts the new user's password (they sign in through the browser below).
    const client = new BerthClient({ endpoint: berth.managerUrl });
    const answer = await client.call<{ data: { role: string } }>('POST', '/auth/authorize', {
      body: { type: 'keypair', domain: 'default', username: NEW_USER.email, password: NEW_USER.password },
    });
    client.close();
    expect(answer.data.role).toBe('user');
  });

  it('changes a keypair rate limit on the user page', async () => {
    const keypairs = page.getByTestId('keypairs');
    await keypairs.getByRole('button', { name: 'Rate limit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Requests per 15 minutes').fill('500');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await toast('The rate limit is saved.');
    await keypairs.getByText('500 / 15 min').waitFor();
    const [accessKey] = await keysOf(NEW_USER.email);
    const row = await berth.app.db.selectFrom('keypairs').select('rate_limit').where('access_key', '=', accessKey).executeTakeFirstOrThrow();
    expect(row.rate_limit).toBe(500);
  });

  it('freezes the manager after a confirmation, and unfreezes it', async () => {
    await page.getByRole('tab', { name: 'Manager' }).click();
    await page.waitForURL(`${webUrl}/admin/manager`);
    const status = page.getByTestId('manager-status');
    await status.filter({ hasText: 'Running' }).waitFor();

    await page.getByRole('button', { name: 'Freeze…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Freeze the manager?' });
    await dialog.getByText('Also terminate every running session first (force kill)').waitFor();
    // Cancelling changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(berth.app.manager.frozen).toBe(false);

    await page.getByRole('button', { name: 'Freeze…' }).click();
    await page.getByRole('dialog', { name: 'Freeze the manager?' }).getByRole('button', { name: 'Freeze', exact: true }).click();
    await status.filter({ hasText: 'Frozen' }).waitFor();
    expect(berth.app.manager.frozen).toBe(true);
    // While frozen, GraphQL mutations are refused with the reason.
    const refused = await page.evaluate(() =>
      fetch('/api/manager/admin/gql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: 'mutation { modify_user(email: "nobody@example.com", props: { full_name: "x" }) { ok } }' }),
      }).then((r) => r.json()),
    );
    expect(refused.errors[0].extensions.code).toBe('server-frozen');

    await page.getByRole('button', { name: 'Unfreeze' }).click();
    await page.getByRole('dialog', { name: 'Unfreeze the manager?' }).getByRole('button', { name: 'Unfreeze' }).click();
    await status.filter({ hasText: 'Running' }).waitFor();
    expect(berth.app.manager.frozen).toBe(false);
  });

  it('writes and reads a key of the configuration store', async () => {
    await page.getByRole('tab', { name: 'Configuration' }).click();
    await page.waitForURL(`${webUrl}/admin/config`);
    const write = page.locator('#config-write');
    await write.getByLabel('Key').fill(MAX_AGE_KEY);
    await write.getByLabel('Value').fill('30d');
    await write.getByRole('button', { name: 'Save value' }).click();
    await toast(`${MAX_AGE_KEY} is set.`);
    expect(await berth.app.config.get(MAX_AGE_KEY)).toBe('30d');

    const read = page.locator('#config-read');
    await read.getByLabel('Key').fill('auth/');
    await read.getByLabel('As a prefix').check();
    await read.getByRole('button', { name: 'Read' }).click();
    const result = page.getByTestId('config-result');
    await result.getByText('max_password_age').waitFor();
    expect(await result.innerText()).toContain('30d');
  });

  it('creates, edits and deletes a resource preset', async () => {
    await page.getByRole('tab', { name: 'Resource presets' }).click();
    await page.waitForURL(`${webUrl}/admin/presets`);
    await page.getByRole('button', { name: 'New preset' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('tiny');
    await dialog.getByLabel('CPU').fill('0.5');
    await dialog.getByLabel('Memory', { exact: true }).fill('512 megabytes');
    await dialog.getByText('A size such as 512m, 4g or 1.5g.').waitFor();
    await dialog.getByLabel('Memory', { exact: true }).fill('512m');
    await dialog.getByRole('button', { name: 'Create preset' }).click();
    await toast('Preset tiny is created.');
    const row = page.getByTestId('presets-table').getByRole('row').filter({ hasText: 'tiny' });
    await row.getByText('512 MiB').waitFor();

    await row.getByRole('button', { name: 'Edit tiny' }).click();
    await page.getByRole('dialog').getByLabel('Memory', { exact: true }).fill('1g');
    await page.getByRole('dialog').getByRole('button', { name: 'Save changes' }).click();
    await toast('Preset tiny is saved.');
    await row.getByText('1 GiB').waitFor();

    await row.getByRole('button', { name: 'Delete tiny' }).click();
    await page.getByRole('dialog', { name: 'Delete preset tiny?' }).getByRole('button', { name: 'Delete' }).click();
    await toast('Preset tiny is deleted.');
    await row.waitFor({ state: 'detached' });
    const left = await berth.app.db.selectFrom('resource_presets').select('name').where('name', '=', 'tiny').execute();
    expect(left).toEqual([]);
  });

  it('shows the summary with a running session, usage against limits and agent capacity', async () => {
    const client = new BerthClient({ endpoint: berth.managerUrl, accessKey: admin.accessKey, secretKey: admin.secretKey });
    const created = await client.call<{ sessionId: string }>('POST', '/session', { body: { name: 'summary-demo', image: 'python' } });
    client.close();
    await page.getByRole('link', { name: 'Summary' }).click();
    await page.waitForURL(`${webUrl}/`);
    const sessions = page.getByTestId('my-sessions');
    const link = sessions.getByRole('link', { name: 'summary-demo' });
    await link.waitFor({ timeout: 30_000 });
    expect(await link.getAttribute('href')).toBe(`/sessions/${created.sessionId}`);
    await sessions.getByText('RUNNING', { exact: true }).waitFor({ timeout: 60_000 });
    const usage = page.getByTestId('resource-usage');
    await usage.getByText('CPU').first().waitFor();
    expect(await usage.innerText()).toContain('Unlimited');
    await page.getByTestId('agent-capacity').getByText(/1 of 1 agents alive/).waitFor();
    await page.getByTestId('api-version').waitFor();
    // No focus ring on the navigation link that was clicked.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.mouse.move(900, 780);
    await expect.poll(() => page.locator('.MuiTouchRipple-child').count()).toBe(0);
    await page.screenshot({ path: path.join(screenshotDir, 'summary.png') });
  });
});

describe('a plain user', () => {
  it('sees no admin entries and is refused on /admin URLs', async () => {
    await signOut();
    await signInAndWait(NEW_USER.email, NEW_USER.password);
    await page.getByTestId('user-full-name').filter({ hasText: NEW_USER.fullName }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' }).first();
    await nav.getByRole('link', { name: 'Settings' }).waitFor();
    expect(await page.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    await page.getByTestId('group-capacity').waitFor();

    for (const url of ['/admin', '/admin/users', `/admin/users/${encodeURIComponent(admin.email)}`, '/admin/manager', '/admin/config']) {
      await page.goto(`${webUrl}${url}`);
      await page.getByTestId('forbidden').waitFor();
      expect(await page.getByTestId('forbidden').innerText()).toContain('administrators');
      expect(await page.getByRole('tab').count()).toBe(0);
    }

    // The data behind the pages is refused too.
    const answers = await page.evaluate(async (adminEmail) => {
      const gql = await fetch('/api/manager/admin/gql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: '{ user_list(limit: 10) { total_count } }' }),
      }).then((r) => r.json());
      const keypairs = await fetch(`/api/admin/keypairs?email=${encodeURIComponent(adminEmail)}`);
      const status = await fetch('/api/manager/manager/status');
      return { gql: gql.errors?.[0]?.extensions?.code, keypairs: keypairs.status, status: status.status };
    }, admin.email);
    expect(answers).toEqual({ gql: 'insufficient-privilege', keypairs: 403, status: 403 });
  });
});

describe('signed-out account flows', () => {
  it('changes an expired password at sign-in and signs in with the new one', async () => {
    await page.goto(`${webUrl}/`);
    await signOut();
    await berth.app.db
      .updateTable('users')
      .set({ password_changed_at: new Date(Date.now() - 60 * 86_400_000) })
      .where('email', '=', NEW_USER.email)
      .execute();

    await signIn(NEW_USER.email, NEW_USER.password);
    const form = page.getByTestId('password-expired');
    await form.waitFor();
    expect(await form.innerText()).toContain('It expired on');
    await form.getByLabel(/^New password/).fill(NEW_USER.password);
    await form.getByLabel('Repeat the new password').fill(NEW_USER.password);
    await form.getByRole('button', { name: 'Change password and sign in' }).click();
    await form.getByText('Choose a password different from the expired one.').waitFor();
    await form.getByLabel(/^New password/).fill(RENEWED_PASSWORD);
    await form.getByLabel('Repeat the new password').fill(RENEWED_PASSWORD);
    await form.getByRole('button', { name: 'Change password and sign in' }).click();
    await page.waitForURL(`${webUrl}/`);
    await page.getByTestId('user-email').filter({ hasText: NEW_USER.email }).waitFor();

    await signOut();
    await signIn(NEW_USER.email, NEW_USER.password);
    await page.getByTestId('login-error').filter({ hasText: 'User credential mismatch.' }).waitFor();
    await signInAndWait(NEW_USER.email, RENEWED_PASSWORD);
    await signOut();
  });

  it('refuses the unsigned account routes from other origins', async () => {
    const body = JSON.stringify({ domain: 'default', username: NEW_USER.email, current_password: RENEWED_PASSWORD, new_password: 'hijacked-password' });
    const origins: Record<string, string>[] = [{ Origin: 'http://attacker.example' }, {}];
    for (const headers of origins) {
      const answer = await fetch(`${webUrl}/api/auth-extra/update-password`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
      expect(answer.status).toBe(403);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
    }
    const signup = await fetch(`${webUrl}/api/auth-extra/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'http://attacker.example' },
      body: JSON.stringify({ domain: 'default', email: 'mallory@example.com', password: 'mallory-password' }),
    });
    expect(signup.status).toBe(403);
    const users = await berth.app.db.selectFrom('users').select('email').where('email', '=', 'mallory@example.com').execute();
    expect(users).toEqual([]);
  });

  it('signs a visitor up when signup is enabled, and hides signup otherwise', async () => {
    await page.goto(`${webUrl}/login`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL(`${webUrl}/signup`);
    await page.getByLabel(/^Email/).fill(SIGNUP_USER.email);
    await page.getByLabel('Choose a password').fill(SIGNUP_USER.password);
    await page.getByLabel('Repeat the password').fill(SIGNUP_USER.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${webUrl}/`);
    await page.getByTestId('user-email').filter({ hasText: SIGNUP_USER.email }).waitFor();
    await signOut();

    process.env.BERTH_ALLOW_SIGNUP = '';
    try {
      await page.goto(`${webUrl}/login`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);
      expect((await fetch(`${webUrl}/signup`)).status).toBe(404);
      const refused = await page.evaluate(() =>
        fetch('/api/auth-extra/signup', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ domain: 'default', email: 'late@example.com', password: 'late-password-1' }),
        }).then((r) => r.status),
      );
      expect(refused).toBe(403);
    } finally {
      process.env.BERTH_ALLOW_SIGNUP = '1';
    }
  });

  it('lets the admin delete the configuration key after a confirmation', async () => {
    await signInAndWait(admin.email, ADMIN_PASSWORD);
    await page.goto(`${webUrl}/admin/config`);
    const remove = page.locator('#config-delete');
    await remove.getByLabel('Key').fill(MAX_AGE_KEY);
    await remove.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: `Delete “${MAX_AGE_KEY}”?` });
    await dialog.getByText(MAX_AGE_KEY, { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await toast(`${MAX_AGE_KEY} is deleted.`);
    expect(await berth.app.config.get(MAX_AGE_KEY)).toBeNull();
  });
});

describe('keys', () => {
  it('never hands an access or secret key to the browser', async () => {
    const keys = [admin.accessKey, admin.secretKey, ...(await keysOf(NEW_USER.email)), ...(await keysOf(SIGNUP_USER.email))];
    expect(keys.length).toBeGreaterThanOrEqual(6);
    const responses = await recorder.settled();
    const readable = responses.filter((r) => r.body !== null && r.url.startsWith(webUrl));
    expect(readable.filter((r) => r.resourceType === 'script').length).toBeGreaterThan(0);
    expect(readable.some((r) => r.url.includes('/api/admin/keypairs'))).toBe(true);
    expect(readable.some((r) => r.url.includes('/api/manager/admin/gql'))).toBe(true);
    const everything = [...readable.map((r) => ({ url: r.url, body: r.body! })), { url: 'DOM', body: await page.content() }];
    for (const { url, body } of everything) {
      for (const key of keys) expect(body.includes(key), `a key in ${url}`).toBe(false);
    }
  });

  it('rendered every page without script errors (hydration included)', () => {
    expect(pageErrors).toEqual([]);
  });
});
