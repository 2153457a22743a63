/** The `berth` command line against a real manager: login, whoami, config, sessions and events. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN_PASSWORD, startTestBerth, type TestBerth } from '../helpers/berth';

let t: TestBerth;
let home: string;
beforeAll(async () => {
  t = await startTestBerth();
  home = mkdtempSync(path.join(tmpdir(), 'berth-cli-'));
});
afterAll(async () => {
  await t?.stop();
  rmSync(home, { recursive: true, force: true });
});

const CLI = path.resolve(__dirname, '../../server/client/cli/main.ts');

function berth(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, BERTH_ENDPOINT: t.url, BERTH_CLI_CONFIG: path.join(home, 'credentials.json'), BERTH_ACCESS_KEY: '', BERTH_SECRET_KEY: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('berth CLI', () => {
  it('refuses commands before login with a usage error', async () => {
    const res = await berth(['whoami']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('Not logged in');
  });

  it('logs in with the printed credentials and saves the keypair with mode 0600', async () => {
    const res = await berth(['login', '--username', t.adminCreds.email, '--password', ADMIN_PASSWORD]);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ logged_in: true, access_key: t.adminCreds.accessKey, role: 'superadmin' });
    expect(statSync(path.join(home, 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it('says who is logged in', async () => {
    const res = await berth(['whoami']);
    expect(JSON.parse(res.stdout)).toMatchObject({ access_key: t.adminCreds.accessKey, global_role: 'superadmin' });
  });

  it('reports a wrong password as an API error with exit code 1', async () => {
    const res = await berth(['login', '--username', t.adminCreds.email, '--password', 'not-the-password']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('401');
  });

  it('sets and reads configuration', async () => {
    expect((await berth(['config', 'set', 'cli/test', 'hello'])).code).toBe(0);
    const res = await berth(['config', 'get', 'cli/test']);
    expect(JSON.parse(res.stdout)).toEqual({ result: 'hello' });
  });

  it('creates a python session, keeps state between runs, streams output and destroys it', async () => {
    const created = await berth(['session', 'create', 'cli-sess', '--image', 'python']);
    expect(JSON.parse(created.stdout)).toMatchObject({ status: 'RUNNING', sessionName: 'cli-sess' });
    expect((await berth(['session', 'exec', 'cli-sess', 'answer = 6 * 7'])).code).toBe(0);
    const out = await berth(['session', 'exec', 'cli-sess', 'print(answer)']);
    expect(out.stdout).toBe('42\n');
    const batch = await berth(['session', 'exec', 'cli-sess', '--batch', 'echo from-batch; exit 4']);
    expect(batch.stdout).toBe('from-batch\n');
    expect(batch.code).toBe(4);
    const destroyed = await berth(['session', 'destroy', 'cli-sess']);
    expect(JSON.parse(destroyed.stdout)).toHaveProperty('stats');
  });

  it('runs batch sessions to success and failure and prints their events', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'events', '--scope', 'session'], {
      env: { ...process.env, BERTH_ENDPOINT: t.url, BERTH_CLI_CONFIG: path.join(home, 'credentials.json') },
    });
    let lines = '';
    child.stdout.on('data', (d) => (lines += d));
    await new Promise((r) => setTimeout(r, 1500));
    await berth(['session', 'create', 'cli-ok', '--image', 'shell', '--type', 'batch', '--startup-command', 'exit 0']);
    await berth(['session', 'create', 'cli-bad', '--image', 'shell', '--type', 'batch', '--startup-command', 'exit 3']);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && !(lines.includes('session_success') && lines.includes('session_failure'))) await new Promise((r) => setTimeout(r, 100));
    child.kill();
    const events = lines.trim().split('\n').map((l) => JSON.parse(l));
    expect(events.find((e) => e.event === 'session_success')).toMatchObject({ sessionName: 'cli-ok', exitCode: 0 });
    expect(events.find((e) => e.event === 'session_failure')).toMatchObject({ sessionName: 'cli-bad', exitCode: 3 });
  });
});
