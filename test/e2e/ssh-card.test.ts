/**
 * The session page's "SSH / SFTP" card in a real browser: it shows the exact commands for that session, and its
 * key download (through the dashboard's relay) saves the session key, which the real ssh client then logs in
 * with through a local forward (the CLI's). Another user's key download answers no key.
 *
 * Needs `npx next build` first and /usr/bin/chromium; runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Berth } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { createUser } from '../../server/accounts/create-user';
import { startForward } from '../../server/client/forward';
import { launchWatchedBrowser, signIn, startDashboard, type Dashboard, type WatchedBrowser } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-ssh-admin-123';
const USER_PASSWORD = 'e2e-ssh-user-456';
const SESSION = 'e2e-ssh';

let dashboard: Dashboard;
let berth: Berth;
let browser: WatchedBrowser;
let page: Page;
let webUrl: string;
let client: BerthClient;
let sessionId: string;
const pageErrors: string[] = [];

async function addUser(email: string): Promise<BerthClient> {
  const created = await createUser(berth.app.db, { email, username: email.split('@')[0], password: USER_PASSWORD, domainName: 'default', role: 'user', keypair: { isAdmin: false, rateLimit: 10000 } });
  return new BerthClient({ endpoint: berth.managerUrl, accessKey: created.accessKey, secretKey: created.secretKey });
}

beforeAll(async () => {
  dashboard = await startDashboard('ssh', ADMIN_PASSWORD);
  ({ berth, webUrl } = dashboard);
  client = await addUser('sshuser@example.com');
  await addUser('other@example.com');
  sessionId = (await client.call('POST', '/session', { body: { name: SESSION, image: 'shell' } })).sessionId;
  browser = await launchWatchedBrowser(pageErrors);
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  client?.close();
  await dashboard?.stop();
});

describe('the SSH / SFTP card', () => {
  it('shows the exact commands for the session', async () => {
    await signIn(page, webUrl, 'sshuser@example.com', USER_PASSWORD);
    await page.goto(`${webUrl}/sessions/${sessionId}`);
    const card = page.getByTestId('ssh-card');
    await card.waitFor({ timeout: 60_000 });
    const commands = await card.getByTestId('ssh-command').allInnerTexts();
    expect(commands).toContain(`npx berth app ${SESSION} sshd --bind 127.0.0.1:2222`);
    expect(commands).toContain(`ssh -p 2222 -i ~/.berth/${SESSION}.key work@127.0.0.1`);
    expect(commands).toContain(`rsync -e 'ssh -p 2222 -i ~/.berth/${SESSION}.key' -a ./data/ work@127.0.0.1:data/`);
    expect(commands).toContain(`npx berth ssh ${SESSION}`);
    expect(commands.some((c) => c.startsWith('sftp -P 2222'))).toBe(true);
  });

  it('downloads the session key, which logs in with the real ssh through a local forward', async () => {
    const download = page.waitForEvent('download');
    await page.getByTestId('ssh-key-download').click();
    const saved = await download;
    // The manager names the file (Content-Disposition): the key's name in the session.
    expect(saved.suggestedFilename()).toBe('id_container');
    const file = (await saved.path())!;
    const key = readFileSync(file, 'utf8');
    expect(key).toContain('BEGIN OPENSSH PRIVATE KEY');
    chmodSync(file, 0o600);
    const forward = await startForward(client, { session: SESSION, app: 'sshd', protocol: 'tcp', host: '127.0.0.1', port: 0 });
    try {
      const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn('ssh', ['-p', String(forward.port), '-i', file, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', 'work@127.0.0.1', 'echo', 'card-$((6*7))']);
        let stdout = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.on('close', (code) => resolve({ code, stdout }));
      });
      expect(out.stdout.trim()).toBe('card-42');
      expect(out.code).toBe(0);
    } finally {
      await forward.close();
    }
    expect(pageErrors).toEqual([]);
  });

  it("answers no key to another user, through the same relay", async () => {
    await page.goto(`${webUrl}/`);
    await page.context().clearCookies();
    await signIn(page, webUrl, 'other@example.com', USER_PASSWORD);
    const answer = await page.evaluate(async (id) => {
      const res = await fetch(`/api/manager/session/${id}/download_single?file=%2Fhome%2Fwork%2Fid_container`);
      return { status: res.status, text: await res.text() };
    }, sessionId);
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('PRIVATE KEY');
  });
});
