/**
 * Backup → wipe → restore (issue 14) with the real `berth` command: a populated Berth is backed up while it serves,
 * stopped and thrown away; `berth restore` fills a new, empty database (a new data directory, or a new PostgreSQL
 * database) and a Berth started on it has every user, keypair, folder record, template, service and session record
 * back. Restore refuses a database that is not empty and files that are not (whole) Berth backups, changing nothing.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BerthClient } from '../../server/client/client';
import { startBerth, type Berth } from '../../server/start';
import { terminateAllSessions } from '../../server/manager/sessions';
import { createTestDatabase, startTestBerth, testSettings, type TestBerth, type TestUser } from '../helpers/berth';

const CLI = path.resolve(__dirname, '../../server/client/cli/main.ts');
const onPostgres = process.env.BERTH_TEST_DB === 'postgres';

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'berth-backup-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function berth(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, BERTH_CLI_CONFIG: path.join(work, 'credentials.json'), BERTH_DATABASE_URL: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end();
  });
}

interface Population {
  alice: TestUser;
  folderId: string;
  templateId: string;
  serviceId: string;
  sessionId: string;
}

async function populate(t: TestBerth): Promise<Population> {
  const alice = await t.createUser({ password: 'alice-password-1' });
  const folder = await alice.client.call('POST', '/folders', { body: { name: 'kept-data' } });
  await alice.client.call('POST', '/folders', { body: { name: 'kept-model', usage_mode: 'model' } });
  const template = await alice.client.call('POST', '/template/session', {
    body: { group: 'default', domain: 'default', payload: JSON.stringify({ api_version: 'v1', kind: 'taskTemplate', metadata: { name: 'kept' }, spec: { session_type: 'interactive', kernel: { image: 'python', architecture: 'x86_64' } } }) },
  });
  const service = await alice.client.call('POST', '/services', {
    body: {
      name: 'kept-service', desired_session_count: 0, image: 'python', arch: 'x86_64', group: 'default', domain: 'default', open_to_public: false,
      startup_command: 'python3 -m http.server $PORT', config: { model: 'kept-model', model_mount_destination: '/home/work/model' },
    },
  });
  const session = await alice.client.call('POST', '/session', { body: { name: 'kept-session', image: 'shell', group: 'default' } });
  await alice.client.call('DELETE', '/session/kept-session');
  return { alice, folderId: folder.id, templateId: template[0].id, serviceId: service.endpoint_id ?? service.id, sessionId: session.sessionId };
}

it('backs up a serving Berth, and restores it into a new empty database with everything back', async () => {
  const t = await startTestBerth();
  let population: Population;
  const file = path.join(work, 'berth.backup');
  try {
    population = await populate(t);
    const env = { BERTH_ENDPOINT: t.url, BERTH_ACCESS_KEY: t.adminCreds.accessKey, BERTH_SECRET_KEY: t.adminCreds.secretKey };
    // Berth keeps serving while the backup streams.
    const [made, during] = await Promise.all([berth(['backup', file], env), population.alice.client.request('GET', '/folders')]);
    expect(made.code, made.stderr).toBe(0);
    expect(during.status).toBe(200);
    expect(JSON.parse(made.stdout)).toMatchObject({ file, database: onPostgres ? 'postgres' : 'pglite' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file).subarray(0, 15).toString()).toBe('BERTH-BACKUP 1\n');
    expect(existsSync(`${file}.partial`)).toBe(false);
    const again = await berth(['backup', file], env);
    expect(again.code).toBe(2);
    const user = await berth(['backup', path.join(work, 'not-allowed.backup')], { ...env, BERTH_ACCESS_KEY: population.alice.accessKey, BERTH_SECRET_KEY: population.alice.secretKey });
    expect(user.code).toBe(1);
    expect(user.stderr).toContain('403');
    expect(existsSync(path.join(work, 'not-allowed.backup.partial'))).toBe(false);
  } finally {
    // The wipe: the manager stops and its database goes with it.
    await t.stop();
  }

  // A new, empty home: a fresh data directory, and on PostgreSQL a fresh database.
  const dataDir = mkdtempSync(path.join(work, 'restored-'));
  const database = onPostgres ? await createTestDatabase() : null;
  const restoreEnv = { BERTH_DATA_DIR: dataDir, BERTH_DATABASE_URL: database?.url ?? '' };
  let restored: Berth | null = null;
  try {
    const result = await berth(['restore', file], restoreEnv);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ restored: true, database: onPostgres ? 'postgres' : 'pglite' });
    expect(summary.counts.users).toBeGreaterThanOrEqual(2);
    expect(summary.counts.sessions).toBeGreaterThanOrEqual(1);

    // Into a database that is no longer empty: refused, and nothing changes.
    const twice = await berth(['restore', file], restoreEnv);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('not empty');

    restored = await startBerth({ settings: testSettings(dataDir, database?.url), roles: ['manager'] });
    const { alice } = population!;
    // The user and her password: a login answers her own keypair, which signs requests again.
    const login = await new BerthClient({ endpoint: restored.managerUrl }).call('POST', '/auth/authorize', { body: { type: 'keypair', domain: 'default', username: alice.email, password: 'alice-password-1' } });
    expect(login.data.access_key).toBe(alice.accessKey);
    const client = new BerthClient({ endpoint: restored.managerUrl, accessKey: alice.accessKey, secretKey: alice.secretKey });
    const folders = await client.call('GET', '/folders');
    expect(folders.map((f: { name: string }) => f.name).sort()).toEqual(['kept-data', 'kept-model']);
    expect(folders.find((f: { name: string }) => f.name === 'kept-data').id).toBe(population!.folderId);
    const templates = await client.call('GET', '/template/session');
    expect(templates.map((x: { id: string }) => x.id)).toContain(population!.templateId);
    const services = await client.call('GET', '/services');
    expect(services.map((s: { name: string }) => s.name)).toEqual(['kept-service']);
    const session = await client.call('GET', `/session/${population!.sessionId}`);
    expect(session).toMatchObject({ sessionName: 'kept-session', status: 'TERMINATED' });
    client.close();
  } finally {
    if (restored) {
      await terminateAllSessions(restored.app);
      await restored.stop();
    }
    await database?.drop();
  }
}, 240_000);

it('refuses files that are not whole Berth backups, changing nothing', async () => {
  const dataDir = path.join(work, 'untouched');
  const database = onPostgres ? await createTestDatabase() : null;
  const env = { BERTH_DATA_DIR: dataDir, BERTH_DATABASE_URL: database?.url ?? '' };
  try {
    const junk = path.join(work, 'junk.bin');
    writeFileSync(junk, 'PGDMP this is not what berth writes\n'.repeat(100));
    const notBackup = await berth(['restore', junk], env);
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toContain('is not a Berth backup');

    const cut = path.join(work, 'cut.backup');
    const whole = path.join(work, 'berth.backup');
    writeFileSync(cut, readFileSync(whole));
    truncateSync(cut, statSync(whole).size - 4096);
    const shortened = await berth(['restore', cut], env);
    expect(shortened.code).toBe(1);
    expect(shortened.stderr).toMatch(/cut short|altered/);

    const altered = path.join(work, 'altered.backup');
    const bytes = readFileSync(whole);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    writeFileSync(altered, bytes);
    const flipped = await berth(['restore', altered], env);
    expect(flipped.code).toBe(1);
    expect(flipped.stderr).toContain('altered');

    const missing = await berth(['restore', path.join(work, 'no-such-file')], env);
    expect(missing.code).toBe(1);
    expect((await berth(['restore'], env)).code).toBe(2);

    // Nothing was created: no database directory, no tables.
    expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
    if (database) {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query(`select count(*)::int as n from pg_tables where schemaname = 'public'`);
      await client.end();
      expect(rows[0].n).toBe(0);
    }
  } finally {
    await database?.drop();
  }
}, 120_000);
