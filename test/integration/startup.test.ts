/** The startup contract (CONTRACT §0): one process, credentials printed once, data kept across restarts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import { BerthClient } from '../../server/client/client';
import { createTestDatabase, startTestBerth } from '../helpers/berth';

const MAIN = path.resolve(__dirname, '../../server/main.ts');
let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function start(port: number, appPort: number): Promise<{ child: ChildProcess; output: () => string }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    BERTH_DATA_DIR: dataDir,
    BERTH_ROLES: 'manager,apps',
    BERTH_MANAGER_PORT: String(port),
    BERTH_APP_PORT: String(appPort),
    BERTH_LOG_LEVEL: 'warn',
    // The embedded database, or a fresh PostgreSQL database in the postgres run.
    BERTH_DATABASE_URL: database?.url ?? '',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env: env as NodeJS.ProcessEnv });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready:\n${output}`)), 60_000);
    child.stdout!.on('data', () => output.includes('Berth ready:') && (clearTimeout(timer), resolve()));
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
  return { child, output: () => output };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'berth-start-'));
  if (process.env.BERTH_TEST_DB === 'postgres') database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start on the embedded defaults', () => {
  it('prints the superadmin once, keeps every record across a restart, and stops cleanly on SIGTERM', async () => {
    const [port, appPort] = [await freePort(), await freePort()];
    const first = await start(port, appPort);
    const printed = first.output();
    expect(printed).toMatch(new RegExp(`Berth ready: dashboard \\(off\\), API http://127\\.0\\.0\\.1:${port}, apps http://127\\.0\\.0\\.1:${appPort}`));
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));
    expect(statSync(path.join(dataDir, 'admin-credentials.json')).mode & 0o777).toBe(0o600);
    expect(printed).toContain(creds.password);
    expect(printed).toContain(creds.secretKey);
    expect(creds.accessKey).toMatch(/^AK[A-Z0-9]{18}$/);
    expect(creds.secretKey).toMatch(/^[A-Za-z0-9]{40}$/);

    const endpoint = `http://127.0.0.1:${port}`;
    expect((await new BerthClient({ endpoint }).request('GET', '/')).status).toBe(200);
    const admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    await admin.call('POST', '/config/set', { body: { key: 'restart/check', value: 'kept' } });
    admin.close();
    expect(await stop(first.child)).toBe(0);

    const second = await start(port, appPort);
    expect(second.output()).not.toContain(creds.password);
    const login = await new BerthClient({ endpoint }).call('POST', '/auth/authorize', { body: { type: 'keypair', domain: 'default', username: creds.email, password: creds.password } });
    expect(login.data.access_key).toBe(creds.accessKey);
    const again = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    expect(await again.call('POST', '/config/get', { body: { key: 'restart/check', prefix: false } })).toEqual({ result: 'kept' });
    const presets = await again.call('GET', '/resource/presets');
    expect(presets.presets.map((p: { name: string }) => p.name).sort()).toEqual(['large', 'medium', 'small']);
    again.close();
    expect(await stop(second.child)).toBe(0);
    // Two full starts of a real process: generous room for a busy machine (a limit, not a measurement).
  }, 120_000);
});

describe('the credentials file', () => {
  it('is mode 0600 even when a file of another mode was left in the data directory', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'berth-creds-'));
    const file = path.join(dir, 'admin-credentials.json');
    writeFileSync(file, '{}', { mode: 0o644 });
    const berth = await startTestBerth({ dataDir: dir });
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8')).accessKey).toBe(berth.adminCreds.accessKey);
    } finally {
      await berth.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
