/**
 * A manager killed with SIGKILL in the middle of a launch leaves no sandbox behind: after its restart every
 * sandbox process of its data directory belongs to a RUNNING session. The manager runs as a child process
 * (test/helpers/process.ts); it is killed while a kernel's runner is still starting (its pid not stored yet),
 * while a session restarts into a new sandbox, and at whatever point a launch has reached right after the request.
 * Sandboxes are found here independently of the code under test: by the data directory in their command lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BerthClient } from '../../server/client/client';
import { createTestDatabase } from '../helpers/berth';
import { seedEmbeddedDatabase } from '../helpers/embedded-template';
import { freePort, startManagerProcess, stopProcess, type ManagerProcess } from '../helpers/process';
import { killTree } from '../../server/agents/local/process-tree';

let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
let env: Record<string, string>;
let manager: ManagerProcess | null = null;
let endpoint: string;
let admin: BerthClient;
let orphansFound = 0;

/** Live processes whose command line names a kernel directory of this data directory, by kernel id. */
function sandboxProcesses(): Map<string, number[]> {
  const prefix = path.join(dataDir, 'kernels') + '/';
  const found = new Map<string, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = '';
    let state = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      state = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    if (/\) Z /.test(state)) continue;
    const arg = cmdline.split('\0').find((a) => a.startsWith(prefix));
    if (!arg) continue;
    const kernelId = arg.slice(prefix.length).split('/')[0];
    found.set(kernelId, [...(found.get(kernelId) ?? []), Number(entry)]);
  }
  return found;
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function start(): Promise<void> {
  manager = await startManagerProcess(env);
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));
  admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
}

async function crashAndRestart(): Promise<void> {
  admin.close();
  await stopProcess(manager!.child, 'SIGKILL');
  manager = null;
  await start();
}

/** Kernel ids of RUNNING sessions, as the restarted manager reports them. */
async function runningKernels(): Promise<Set<string>> {
  const answer = await admin.call('POST', '/admin/gql', { body: { query: '{ compute_session_list(status: "RUNNING") { items { containers { id } } } }' } });
  return new Set(answer.data.compute_session_list.items.flatMap((s: { containers: { id: string }[] }) => s.containers.map((c) => c.id)));
}

/** Sandboxes whose kernel is not part of a RUNNING session (with their command lines); counted for the report. */
async function orphans(): Promise<string[]> {
  const running = await runningKernels();
  const left = [...sandboxProcesses()].filter(([kernelId]) => !running.has(kernelId));
  orphansFound += left.length;
  const shown = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    return `pid ${pid} (parent ${parent}) ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 80)}`;
  };
  return left.map(([kernelId, pids]) => `${kernelId}: ${pids.map(shown).join(' | ')}`);
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'berth-crash-'));
  if (process.env.BERTH_TEST_DB === 'postgres') database = await createTestDatabase();
  else seedEmbeddedDatabase(dataDir);
  const port = await freePort();
  endpoint = `http://127.0.0.1:${port}`;
  env = { BERTH_LOG_LEVEL: 'info', BERTH_DATA_DIR: dataDir, BERTH_ROLES: 'manager', BERTH_MANAGER_PORT: String(port), BERTH_DATABASE_URL: database?.url ?? '' };
  await start();
}, 120_000);

afterAll(async () => {
  console.log(`launch crash test: ${orphansFound} orphan sandbox(es) after restarts`);
  if (manager) {
    await admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: true } }).catch(() => undefined);
    admin.close();
    await stopProcess(manager.child);
  }
  // Whatever a failed run left must not outlive the test.
  for (const pids of sandboxProcesses().values()) for (const pid of pids) killTree(pid);
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a manager killed with SIGKILL during a launch', () => {
  it('while the runner is still starting (pid not stored): the session ends and its sandbox is gone', async () => {
    const { sessionId } = await admin.call('POST', '/session', { body: { name: 'starting', image: 'shell', bootstrap_script: 'sleep 600', enqueueOnly: true } });
    // The sandbox exists and its runner sits in the bootstrap script: the launch waits for it to become ready.
    const kernelId = await waitFor('the sandbox to start', () => [...sandboxProcesses().keys()][0]);
    expect((await admin.call('GET', `/session/${sessionId}`)).status).toBe('PREPARING');

    await crashAndRestart();

    expect(sandboxProcesses().has(kernelId)).toBe(false);
    expect(await admin.call('GET', `/session/${sessionId}`)).toMatchObject({ status: 'TERMINATED', statusInfo: 'container-not-found' });
    expect(await orphans()).toEqual([]);
  }, 180_000);

  it('while a session restarts into a new sandbox: the new sandbox does not outlive the session', async () => {
    // The bootstrap script returns at once the first time and hangs on a restart (the scratch directory is kept).
    const bootstrap = 'if [ -e .berth/ran ]; then sleep 600; fi; touch .berth/ran';
    const { sessionId } = await admin.call('POST', '/session', { body: { name: 'restarting', image: 'shell', bootstrap_script: bootstrap } });
    await waitFor('the session to run', async () => (await admin.call('GET', `/session/${sessionId}`)).status === 'RUNNING');
    const [[kernelId, firstPids]] = [...sandboxProcesses()];
    void admin.request('PATCH', '/session/restarting').catch(() => undefined);
    await waitFor('the new sandbox', () => {
      const pids = sandboxProcesses().get(kernelId);
      return pids && pids.every((pid) => !firstPids.includes(pid));
    });

    await crashAndRestart();

    expect(sandboxProcesses().has(kernelId)).toBe(false);
    expect((await admin.call('GET', `/session/${sessionId}`)).status).toBe('TERMINATED');
    expect(await orphans()).toEqual([]);
  }, 180_000);

  it('right after the create request, wherever the launch got to: what runs afterwards is a RUNNING session', async () => {
    const { sessionId } = await admin.call('POST', '/session', { body: { name: 'anywhere', image: 'shell', enqueueOnly: true } });

    await crashAndRestart();

    // Relaunched (it had not started) or ended (it had): either way it settles, with no sandbox unaccounted for.
    const status = await waitFor('the session to settle', async () => {
      const current = (await admin.call('GET', `/session/${sessionId}`)).status as string;
      return ['RUNNING', 'TERMINATED'].includes(current) ? current : undefined;
    });
    expect(await orphans(), `the session is ${status}; manager said:\n${manager!.output().slice(-3000)}`).toEqual([]);
    if (status === 'RUNNING') {
      expect(sandboxProcesses().size).toBe(1);
      await admin.call('DELETE', '/session/anywhere');
    }
    expect(await orphans()).toEqual([]);
  }, 180_000);
});
