/**
 * `berth folder …` against a real manager: create, a resumable upload interrupted by killing the CLI and resumed by
 * running the same command again, listing, a byte-identical download, a read-only share and a clone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';

let t: TestBerth;
let work: string;
let owner: TestUser;
let reader: TestUser;
const data = randomBytes(6 * 1024 * 1024 + 4321);

beforeAll(async () => {
  t = await startTestBerth();
  owner = await t.createUser();
  reader = await t.createUser();
  work = mkdtempSync(path.join(tmpdir(), 'berth-cli-folders-'));
  for (const who of ['owner', 'reader']) mkdirSync(path.join(work, who));
  writeFileSync(path.join(work, 'data.bin'), data);
});
afterAll(async () => {
  await t?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const CLI = path.resolve(__dirname, '../../server/client/cli/main.ts');
// The CLI runs in the scratch directory (relative paths, default download names), so tsx is named by its path.
const TSX = pathToFileURL(path.resolve(__dirname, '../../node_modules/tsx/dist/loader.mjs')).href;

function start(who: TestUser, args: string[]): ChildProcess {
  const home = path.join(work, who === owner ? 'owner' : 'reader');
  return spawn(process.execPath, ['--import', TSX, CLI, ...args], {
    cwd: work,
    env: { ...process.env, BERTH_ENDPOINT: t.url, BERTH_CLI_CONFIG: path.join(home, 'credentials.json'), BERTH_ACCESS_KEY: who.accessKey, BERTH_SECRET_KEY: who.secretKey },
  });
}

function berth(who: TestUser, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = start(who, args);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

function headOffset(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .request(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } }, (res) => {
        res.resume();
        resolve(Number(res.headers['upload-offset']));
      })
      .on('error', reject)
      .end();
  });
}

describe('berth folder', () => {
  it('creates folders and lists them', async () => {
    const created = await berth(owner, ['folder', 'create', 'cli-data', '--cloneable']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'cli-data', cloneable: true, host: 'local:volume1' });
    const listed = await berth(owner, ['folder', 'list', '--json']);
    expect(JSON.parse(listed.stdout).map((f: any) => f.name)).toContain('cli-data');
    const plain = await berth(owner, ['folder', 'list']);
    expect(plain.stdout).toMatch(/^cli-data\t[0-9a-f]{32}\tlocal:volume1\t/m);
  });

  it('uploads resumably: a killed upload resumes from the server offset when the command is run again', async () => {
    const args = ['folder', 'upload', 'cli-data', 'data.bin', 'in/data.bin', '--chunk-size', '64K'];
    const child = start(owner, args);
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (d) => {
        stderr += d;
        if (stderr.includes('uploaded ')) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('close', () => resolve());
    });
    await new Promise((r) => child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('close', r));
    expect(child.signalCode).toBe('SIGKILL');

    const stateDir = path.join(work, 'owner', 'uploads');
    const [stateFile] = readdirSync(stateDir);
    const state = JSON.parse(readFileSync(path.join(stateDir, stateFile), 'utf8'));
    const offset = await headOffset(state.url);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(data.length);
    expect((await berth(owner, ['folder', 'ls', 'cli-data', 'in'])).stdout).not.toContain('data.bin');

    const resumed = await berth(owner, args);
    expect(resumed.code, resumed.stderr).toBe(0);
    const resumedAt = Number(/resuming at (\d+) of/.exec(resumed.stderr)?.[1]);
    expect(resumedAt).toBeGreaterThanOrEqual(offset);
    expect(resumed.stderr).toContain(`uploaded ${data.length} / ${data.length} bytes`);
    expect(JSON.parse(resumed.stdout)).toEqual({ uploaded: 'in/data.bin', size: data.length });
    expect(readdirSync(stateDir)).toEqual([]);

    const ls = await berth(owner, ['folder', 'ls', 'cli-data', 'in', '--json']);
    expect(JSON.parse(ls.stdout)).toEqual([expect.objectContaining({ name: 'data.bin', type: 'FILE', size: data.length })]);
  });

  it('downloads identical bytes, and a directory as a zip', async () => {
    const res = await berth(owner, ['folder', 'download', 'cli-data', 'in/data.bin', 'back.bin']);
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(path.join(work, 'back.bin')).equals(data)).toBe(true);
    const zip = await berth(owner, ['folder', 'download', 'cli-data', 'in', '--archive']);
    expect(zip.code, zip.stderr).toBe(0);
    expect(readFileSync(path.join(work, 'in.zip')).subarray(0, 2).toString()).toBe('PK');
  });

  it('uploads and downloads an empty file', async () => {
    writeFileSync(path.join(work, 'empty.txt'), '');
    const up = await berth(owner, ['folder', 'upload', 'cli-data', 'empty.txt', 'in/']);
    expect(up.code, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout)).toEqual({ uploaded: 'in/empty.txt', size: 0 });
    const down = await berth(owner, ['folder', 'download', 'cli-data', 'in/empty.txt', 'empty-back.txt']);
    expect(down.code, down.stderr).toBe(0);
    expect(readFileSync(path.join(work, 'empty-back.txt')).length).toBe(0);
  });

  it('shares read-only: the invitee downloads but cannot upload', async () => {
    const shared = await berth(owner, ['folder', 'share', 'cli-data', reader.email, '--perm', 'ro']);
    expect(shared.code, shared.stderr).toBe(0);
    expect(JSON.parse(shared.stdout)).toEqual({ invited_ids: [reader.email] });
    const invitations = JSON.parse((await berth(reader, ['folder', 'invitations'])).stdout);
    expect(invitations).toHaveLength(1);
    expect((await berth(reader, ['folder', 'accept', invitations[0].id])).code).toBe(0);

    const down = await berth(reader, ['folder', 'download', 'cli-data', 'in/data.bin', 'reader.bin']);
    expect(down.code, down.stderr).toBe(0);
    expect(readFileSync(path.join(work, 'reader.bin')).equals(data)).toBe(true);

    writeFileSync(path.join(work, 'small.txt'), 'not allowed');
    const up = await berth(reader, ['folder', 'upload', 'cli-data', 'small.txt']);
    expect(up.code).toBe(1);
    expect(up.stderr).toContain('error: 403');
    expect((await berth(owner, ['folder', 'ls', 'cli-data', '--json'])).stdout).not.toContain('small.txt');
  });

  it('clones a folder and waits for the copy', async () => {
    const res = await berth(owner, ['folder', 'clone', 'cli-data', 'cli-copy']);
    expect(res.code, res.stderr).toBe(0);
    const clone = JSON.parse(res.stdout);
    expect(clone).toMatchObject({ name: 'cli-copy', status: 'done' });
    const copied = path.join(t.app.settings.dataDir, 'vfolders', 'volume1', clone.id, 'in', 'data.bin');
    expect(readFileSync(copied).equals(data)).toBe(true);

    expect((await berth(owner, ['folder', 'delete', 'cli-copy'])).code).toBe(0);
    expect(existsSync(copied)).toBe(false);
    const listed = JSON.parse((await berth(owner, ['folder', 'list', '--json'])).stdout).find((f: any) => f.id === clone.id);
    expect(listed.status).toBe('delete-pending');
    expect(existsSync(path.join(t.app.settings.dataDir, 'vfolders', 'volume1', '.trash', clone.id, 'in', 'data.bin'))).toBe(true);
  });
});
