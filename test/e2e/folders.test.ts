/**
 * The folders pages in a real browser: a user signs in, creates a folder, uploads a few MiB with tus through the
 * dashboard's storage relay and sees the progress reach 100 %, sees the file listed, downloads it and gets the
 * same bytes, makes a directory and downloads it as a zip, and shares the folder read-only with a second user;
 * an invitation to a third user shows among the sent ones and is cancelled. The second user, in a browser of
 * their own, accepts the invitation from the inbox, sees the folder read-only, is refused an upload with the
 * manager's reason, and leaves the folder. The owner renames and deletes a folder from the list, mounts folders
 * into a new session from the launcher and reads an uploaded file in its terminal, and is refused deleting a
 * folder a running session mounts. Dark-mode screenshots are checked to be dark. Nothing either browser received
 * holds a key.
 *
 * Needs `npx next build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Berth } from '../../server/start';
import { createUser } from '../../server/accounts/create-user';
import { BerthClient } from '../../server/client/client';
import { screenshotDark } from '../helpers/browser';
import { launchWatchedBrowser, relayCallsDuring, waitForMountReads, screenshotDir, signIn as signInAt, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';

const OWNER = { email: 'owner@example.com', username: 'owner', password: 'e2e-folders-owner-123' };
const GUEST = { email: 'guest@example.com', username: 'guest', password: 'e2e-folders-guest-456' };
const THIRD = { email: 'third@example.com', username: 'third', password: 'e2e-folders-third-789' };
const FOLDER = 'datasets';
const PAYLOAD = randomBytes(6 * 1024 * 1024 + 12345);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let dashboard: Dashboard;
let berth: Berth;
let webUrl: string;
let owner: WatchedBrowser;
let guest: WatchedBrowser | undefined;
let page: Page;
const keys: string[] = [];
let ownerKeys: { accessKey: string; secretKey: string };
const recorders: WatchedBrowser['recorder'][] = [];
const pageErrors: string[] = [];


const signIn = (p: Page, who: { email: string; password: string }) => signInAt(p, webUrl, who.email, who.password);

const folderRow = (p: Page, name: string) => p.locator(`[data-testid="folder-row"][data-folder="${name}"]`);

/** Waits until the active terminal shows `text`. */
async function waitForTerminal(p: Page, text: string): Promise<void> {
  await p.waitForFunction(
    (expected) => document.querySelector('[data-testid="active-terminal"] .xterm-rows')?.textContent?.includes(expected) ?? false,
    text,
    { timeout: 20_000 },
  );
}

async function addUser(who: { email: string; username: string; password: string }): Promise<{ accessKey: string; secretKey: string }> {
  const created = await createUser(berth.app.db, {
    email: who.email,
    username: who.username,
    password: who.password,
    domainName: 'default',
    role: 'user',
    keypair: { isAdmin: false, rateLimit: 10000 },
  });
  keys.push(created.accessKey, created.secretKey);
  return { accessKey: created.accessKey, secretKey: created.secretKey };
}

beforeAll(async () => {
  dashboard = await startDashboard('folders', 'e2e-folders-admin-789');
  ({ berth, webUrl } = dashboard);
  keys.push(berth.bootstrap.credentials!.accessKey, berth.bootstrap.credentials!.secretKey);
  ownerKeys = await addUser(OWNER);

  owner = await launchWatchedBrowser(pageErrors);
  page = owner.page;
  recorders.push(owner.recorder);
  await signIn(page, OWNER);
});

afterAll(async () => {
  await guest?.close();
  await owner?.close();
  await dashboard?.stop();
});

describe('folders in the browser', () => {
  it('shows the empty state, then creates a folder from the dialog', async () => {
    await page.getByRole('link', { name: 'Folders', exact: true }).click();
    await page.waitForURL(`${webUrl}/folders`);
    await page.getByText('No folders yet').waitFor();
    await page.getByRole('button', { name: 'New folder' }).first().click();
    await page.getByTestId('folder-name-input').fill(FOLDER);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/folders\/[0-9a-f]{32}$/);
    await page.getByRole('heading', { name: FOLDER }).waitFor();
    await page.getByText('This folder is empty').waitFor();
  });

  it('uploads a few MiB with progress reaching 100 %, lists the file and downloads the same bytes', async () => {
    // Every percentage the progress panel shows, recorded in the page as it changes.
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { __percents: number[] }).__percents = seen;
      new MutationObserver(() => {
        const panel = document.querySelector('[data-testid="upload-progress"]');
        const value = panel ? Number(panel.getAttribute('data-percent')) : NaN;
        if (!Number.isNaN(value) && seen[seen.length - 1] !== value) seen.push(value);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-percent'] });
    });
    await page.getByTestId('folder-upload-input').setInputFiles({ name: 'weights.bin', mimeType: 'application/octet-stream', buffer: PAYLOAD });
    const panel = page.locator('[data-testid="upload-progress"][data-done="yes"]');
    await panel.waitFor({ timeout: 60_000 });
    expect(await panel.getAttribute('data-percent')).toBe('100');
    expect(await panel.innerText()).toContain('100%');
    const percents = await page.evaluate(() => (window as unknown as { __percents: number[] }).__percents);
    expect(percents[percents.length - 1]).toBe(100);

    const row = page.locator('[data-testid="file-row"][data-name="weights.bin"]');
    await row.waitFor();
    expect(await row.innerText()).toContain('6.0 MiB');

    const download = page.waitForEvent('download');
    await row.getByRole('button', { name: 'Download weights.bin' }).click();
    const file = await (await download).path();
    expect(sha(readFileSync(file))).toBe(sha(PAYLOAD));
  });

  it('makes a directory, moves the file into it and downloads the directory as a zip', async () => {
    await page.getByRole('button', { name: 'New directory' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('models');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const dirRow = page.locator('[data-testid="file-row"][data-name="models"]');
    await dirRow.waitFor();

    await page.getByRole('checkbox', { name: 'Select weights.bin' }).check();
    await page.getByTestId('selection-toolbar').getByRole('button', { name: 'Move' }).click();
    await page.getByRole('textbox', { name: 'Destination directory' }).fill('/models');
    await page.getByRole('button', { name: 'Move', exact: true }).last().click();
    await page.locator('[data-testid="file-row"][data-name="weights.bin"]').waitFor({ state: 'detached' });

    const download = page.waitForEvent('download');
    await dirRow.getByRole('button', { name: 'Download models' }).click();
    const zip = readFileSync(await (await download).path());
    expect(zip.subarray(0, 2).toString('latin1')).toBe('PK');

    await dirRow.getByRole('button', { name: 'models', exact: true }).click();
    await page.locator('[data-testid="file-row"][data-name="weights.bin"]').waitFor();
    await page.screenshot({ path: path.join(screenshotDir, 'folder.png') });
    await screenshotDark(page, path.join(screenshotDir, 'folder-dark.png'));
    await page.getByRole('navigation', { name: 'Path' }).getByRole('button', { name: FOLDER, exact: true }).click();
    await dirRow.waitFor();
  });

  it('shares the folder read-only by email', async () => {
    await addUser(GUEST);
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await page.getByTestId('share-emails').fill(GUEST.email);
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByTestId('share-result').waitFor();
    expect(await page.getByTestId('share-result').innerText()).toContain(GUEST.email);
    await page.getByRole('button', { name: 'Done' }).click();
  });

  it('lists the invitations the owner sent, and cancels one', async () => {
    await addUser(THIRD);
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await page.getByTestId('share-emails').fill(THIRD.email);
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByTestId('share-result').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();

    await page.goto(`${webUrl}/folders`);
    const sent = page.getByTestId('sent-invitations');
    const toGuest = sent.locator(`[data-testid="invitation"][data-invitee="${GUEST.email}"]`);
    const toThird = sent.locator(`[data-testid="invitation"][data-invitee="${THIRD.email}"]`);
    await toGuest.waitFor();
    await toThird.waitFor();
    expect(await toThird.innerText()).toContain(FOLDER);
    expect(await toThird.innerText()).toContain('Read only');
    await toThird.getByRole('button', { name: `Cancel the invitation of ${THIRD.email} to ${FOLDER}` }).click();
    await toThird.waitFor({ state: 'detached' });
    // The manager forgot it too: a fresh page lists the guest's invitation only.
    await page.reload();
    await toGuest.waitFor();
    expect(await toThird.count()).toBe(0);
  });

  it('the guest accepts the invitation from the inbox, sees the folder read-only and is refused an upload', async () => {
    guest = await launchWatchedBrowser(pageErrors);
    const other = guest.page;
    recorders.push(guest.recorder);
    await signIn(other, GUEST);
    await other.goto(`${webUrl}/folders`);
    const invitation = other.locator(`[data-testid="invitation"][data-folder="${FOLDER}"]`);
    await invitation.waitFor();
    expect(await invitation.innerText()).toContain(OWNER.email);
    expect(await invitation.innerText()).toContain('Read only');
    await invitation.getByRole('button', { name: 'Accept' }).click();
    await invitation.waitFor({ state: 'detached' });

    const row = other.locator(`[data-testid="folder-row"][data-folder="${FOLDER}"]`);
    await row.waitFor();
    expect(await row.getByTestId('folder-permission').innerText()).toBe('Read only');
    expect(await row.innerText()).toContain(`Shared by ${OWNER.email}`);
    await other.screenshot({ path: path.join(screenshotDir, 'folders.png') });

    await row.getByRole('link', { name: FOLDER }).click();
    await other.locator('[data-testid="file-row"][data-name="models"]').waitFor();
    await other.getByTestId('folder-upload-input').setInputFiles({ name: 'intruder.txt', mimeType: 'text/plain', buffer: Buffer.from('not allowed') });
    const problem = other.getByTestId('folder-problem');
    await problem.waitFor();
    expect(await problem.innerText()).toContain('does not let you write to it');
    expect(await other.locator('[data-testid="file-row"][data-name="intruder.txt"]').count()).toBe(0);
  });

  it('the guest leaves the shared folder after a confirmation', async () => {
    const other = guest!.page;
    await other.goto(`${webUrl}/folders`);
    const row = folderRow(other, FOLDER);
    await row.waitFor();
    // Only the owner renames or deletes it.
    expect(await row.getByRole('button', { name: `Delete ${FOLDER}` }).count()).toBe(0);
    expect(await row.getByRole('button', { name: `Rename ${FOLDER}` }).count()).toBe(0);
    await row.getByRole('button', { name: `Leave ${FOLDER}` }).click();
    const dialog = other.getByRole('dialog');
    expect(await dialog.innerText()).toContain(`Leave ${FOLDER}?`);
    await dialog.getByRole('button', { name: 'Leave', exact: true }).click();
    await row.waitFor({ state: 'detached' });
    await other.reload();
    await other.getByText('No folders yet').waitFor();
    expect(await row.count()).toBe(0);
  });

  it('clones a cloneable folder and follows the copy to the end', async () => {
    await page.goto(`${webUrl}/folders`);
    await page.getByRole('button', { name: 'New folder' }).first().click();
    await page.getByTestId('folder-name-input').fill('template');
    await page.getByLabel('Others with access may clone it').check();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'template' }).waitFor();
    await page.getByTestId('folder-upload-input').setInputFiles({ name: 'readme.txt', mimeType: 'text/plain', buffer: Buffer.from('clone me\n') });
    await page.locator('[data-testid="upload-progress"][data-done="yes"]').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Clone', exact: true }).click();
    await page.getByRole('textbox', { name: 'New folder name' }).fill('template-copy');
    await page.getByRole('dialog').getByRole('button', { name: 'Clone', exact: true }).click();
    await page.getByTestId('clone-done').waitFor({ timeout: 30_000 });
    await page.getByTestId('clone-done').getByRole('link', { name: 'template-copy' }).click();
    await page.getByRole('heading', { name: 'template-copy' }).waitFor();
    await page.locator('[data-testid="file-row"][data-name="readme.txt"]').waitFor();
  });

  it('renames a folder from the list, showing a refusal in place, and deletes one after a confirmation', async () => {
    await page.goto(`${webUrl}/folders`);
    const copy = folderRow(page, 'template-copy');
    await copy.getByRole('button', { name: 'Rename template-copy' }).click();
    const dialog = page.getByRole('dialog');
    const field = dialog.getByRole('textbox', { name: 'New name' });
    expect(await field.inputValue()).toBe('template-copy');
    await field.fill('not a name!');
    expect(await dialog.getByRole('button', { name: 'Rename', exact: true }).isDisabled()).toBe(true);
    // A name the owner already uses: the manager refuses, and the dialog says why.
    await field.fill('template');
    await dialog.getByRole('button', { name: 'Rename', exact: true }).click();
    await dialog.getByTestId('problem').waitFor();
    expect(await dialog.getByTestId('problem').innerText()).toContain('A folder named "template" already exists.');
    await field.fill('template-renamed');
    await dialog.getByRole('button', { name: 'Rename', exact: true }).click();
    const renamed = folderRow(page, 'template-renamed');
    await renamed.waitFor();
    await copy.waitFor({ state: 'detached' });
    await dialog.waitFor({ state: 'detached' });

    await renamed.getByRole('button', { name: 'Delete template-renamed' }).click();
    expect(await dialog.innerText()).toContain('Delete template-renamed?');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await renamed.waitFor({ state: 'detached' });
    await page.reload();
    await folderRow(page, 'template').waitFor();
    expect(await renamed.count()).toBe(0);
    expect(await copy.count()).toBe(0);
    await screenshotDark(page, path.join(screenshotDir, 'folders-dark.png'));
  });

  it('mounts folders into a new session from the launcher and reads an uploaded file in its terminal', async () => {
    const note = `mounted-${randomBytes(4).toString('hex')}`;
    await page.getByRole('button', { name: 'New folder' }).first().click();
    await page.getByTestId('folder-name-input').fill('notebooks');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'notebooks' }).waitFor();
    await page.getByTestId('folder-upload-input').setInputFiles({ name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from(`${note}\n`) });
    await page.locator('[data-testid="upload-progress"][data-done="yes"]').waitFor({ timeout: 30_000 });

    await page.goto(`${webUrl}/sessions/new`);
    await page.getByTestId('image-select').waitFor();
    await page.locator('[data-testid^="preset-"][aria-checked="true"]').waitFor();
    await page.getByLabel('Session name').fill('e2e-mounts');
    const notebooks = page.locator('[data-testid="mount-option"][data-folder="notebooks"]');
    await notebooks.getByRole('checkbox', { name: 'Mount notebooks' }).check();
    expect(await notebooks.getByRole('textbox', { name: 'Path of notebooks' }).inputValue()).toBe('/home/work/notebooks');
    // A second folder at a path of the user's choosing, checked before it is sent.
    const datasets = page.locator(`[data-testid="mount-option"][data-folder="${FOLDER}"]`);
    await datasets.getByRole('checkbox', { name: `Mount ${FOLDER}` }).check();
    const datasetsPath = datasets.getByRole('textbox', { name: `Path of ${FOLDER}` });
    await datasetsPath.fill('/tmp/data');
    await datasets.getByText('Use a path below /home/work.').waitFor();
    await datasetsPath.fill('/home/work/data');
    await page.getByRole('button', { name: 'Launch', exact: true }).click();

    await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/);
    await page.locator('[data-testid="session-status"][data-status="RUNNING"]').first().waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="active-terminal"] [data-testid="terminal"][data-state="open"]').waitFor({ timeout: 20_000 });
    await page.getByTestId('active-terminal').getByTestId('terminal').click();
    await page.keyboard.type('cat /home/work/notebooks/note.txt; ls /home/work/data/models\n');
    await waitForTerminal(page, note);
    await waitForTerminal(page, 'weights.bin');
  });

  it("refuses deleting a folder a running session mounts, with the manager's reason in the dialog", async () => {
    await page.goto(`${webUrl}/folders`);
    const row = folderRow(page, 'notebooks');
    await row.getByRole('button', { name: 'Delete notebooks' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    const problem = dialog.getByTestId('problem');
    await problem.waitFor();
    expect(await problem.innerText()).toContain('e2e-mounts');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.reload();
    await row.waitFor();
  });

  it('refuses tus writes to the storage relay from another origin', async () => {
    const res = await fetch(`${webUrl}/api/storage/upload?token=x`, {
      method: 'PATCH',
      headers: { Origin: 'https://evil.example', 'Tus-Resumable': '1.0.0', 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0' },
      body: 'bytes',
    });
    expect(res.status).toBe(403);
    const unknown = await fetch(`${webUrl}/api/storage/elsewhere`);
    expect(unknown.status).toBe(404);
  });

  it('never hands an access or secret key to either browser', async () => {
    await page.goto('about:blank');
    await guest!.page.goto('about:blank');
    const responses = (await Promise.all(recorders.map((r) => r.settled()))).flat();
    const readable = responses.filter((r) => r.body !== null && r.url.startsWith(webUrl));
    expect(readable.some((r) => r.url.includes('/api/manager/folders'))).toBe(true);
    expect(readable.some((r) => r.resourceType === 'script')).toBe(true);
    for (const { url, body } of readable) {
      for (const key of keys) expect(body!.includes(key), `a key in ${url}`).toBe(false);
    }
  });

  it('pages the folder list past 25 folders', async () => {
    const client = new BerthClient({ endpoint: berth.managerUrl, ...ownerKeys });
    try {
      for (let i = 0; i < 30; i++) await client.call('POST', '/folders', { body: { name: `paged-${String(i).padStart(2, '0')}` } });
      // What the page lists: the folders not in the trash (components/folders/useFolders.ts isTrashed).
      const listed = (await client.call('GET', '/folders')).filter((f: { status: string }) => !f.status.startsWith('delete-')).length;
      // The list is in the page's HTML (read by its server render with the owner's keys, app/lib/page-data.ts) and
      // the list's hook takes it rather than reading it again.
      const html = await (await page.request.get(`${webUrl}/folders`)).text();
      expect(html.split('data-testid="folder-row"').length - 1).toBe(25);
      // The rows' icon buttons are drawn once the page runs (components/ui/tableParts.tsx RowAction): the HTML holds
      // a box of their size for each (rename and delete on the owner's 25 first rows), and no dead button.
      expect(html).not.toContain('aria-label="Rename ');
      expect(html.split('<span aria-hidden="true" style="display:inline-block;width:30px;height:30px').length - 1).toBe(50);
      const calls = await relayCallsDuring(page, async () => {
        await page.goto(`${webUrl}/folders`);
        // The relative creation time is written once the page has hydrated.
        await waitForMountReads(page, () => page.waitForFunction(() => document.querySelector('[data-testid="folder-row"] td:nth-child(6)')?.textContent?.trim()));
      });
      expect(calls.filter((c) => c.method === 'GET' && c.path === '/folders')).toEqual([]);
      expect(await page.locator('[data-testid="folder-row"]').count()).toBe(25);
      expect(await page.getByRole('button', { name: /^Rename / }).count()).toBe(25);
      await page.getByText(`1–25 of ${listed}`).waitFor();
      await page.getByRole('button', { name: 'Go to next page' }).click();
      await page.getByText(`26–${Math.min(50, listed)} of ${listed}`).waitFor();
      expect(await page.locator('[data-testid="folder-row"]').count()).toBe(listed - 25);
      await folderRow(page, 'paged-29').waitFor();
    } finally {
      client.close();
    }
  });

  it('rendered every page without script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
