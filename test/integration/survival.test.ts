/** Sessions outlive the manager: after SIGKILL and a restart the same interpreter, terminal and app answer. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BerthClient } from '../../server/client/client';
import { createTestDatabase } from '../helpers/berth';
import { seedEmbeddedDatabase } from '../helpers/embedded-template';
import { freePort, startManagerProcess, stopProcess, type ManagerProcess } from '../helpers/process';
import { b64, connectStream, unb64 } from '../helpers/ws';
import { KernelCgroup } from '../../server/agents/local/cgroups';
import { killTree } from '../../server/agents/local/process-tree';
import { get, waitFor } from '../helpers/poll';

let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
let env: Record<string, string>;
let manager: ManagerProcess | null = null;
let endpoint: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'berth-survive-'));
  if (process.env.BERTH_TEST_DB === 'postgres') database = await createTestDatabase();
  else seedEmbeddedDatabase(dataDir);
  const [port, appPort] = [await freePort(), await freePort()];
  endpoint = `http://127.0.0.1:${port}`;
  env = { BERTH_DATA_DIR: dataDir, BERTH_ROLES: 'manager,apps', BERTH_MANAGER_PORT: String(port), BERTH_APP_PORT: String(appPort), BERTH_DATABASE_URL: database?.url ?? '' };
});
afterAll(async () => {
  if (manager) {
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));
    const admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    await admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: true } }).catch(() => undefined);
    admin.close();
    await stopProcess(manager.child);
  }
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a manager killed with SIGKILL', () => {
  it('finds its sessions alive on restart: interpreter state, terminal and Jupyter all answer', async () => {
    manager = await startManagerProcess(env);
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));
    let admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    const kept = await admin.call('POST', '/session', { body: { name: 'keeps-going', image: 'python' } });
    const doomed = await admin.call('POST', '/session', { body: { name: 'dies-meanwhile', image: 'shell' } });
    const doomedPid = Number((await admin.call('GET', '/session/dies-meanwhile')).containerId);
    const doomedKernels = await admin.call('POST', '/admin/gql', { body: { query: `{ compute_session(id: "${doomed.sessionId}") { containers { id } } }` } });
    const doomedGroups = new KernelCgroup(doomedKernels.data.compute_session.containers[0].id).directories();
    expect(doomedGroups.every((dir) => existsSync(dir))).toBe(true);
    await admin.call('POST', '/session/keeps-going', { body: { mode: 'query', runId: null, code: 'remembered = "still here"' } });
    const started = await admin.call('POST', '/session/keeps-going/start-service', { body: { app: 'jupyter' } });
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${kept.sessionId}/add?app=jupyter`)).body);
    const auth = await get(added.url);
    const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
    const appBase = auth.headers.location!;
    expect((await get(`${appBase}api/status`, { Cookie: cookie })).status).toBe(200);
    admin.close();

    await stopProcess(manager.child, 'SIGKILL');
    manager = null;
    // While the manager is down, one sandbox dies with everything in it.
    killTree(doomedPid);
    // The app kept running without a manager; the proxy is down with it.
    manager = await startManagerProcess(env);
    admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });

    const same = await admin.call('POST', '/session/keeps-going', { body: { mode: 'query', runId: null, code: 'print(remembered)' } });
    expect(same.result.console).toEqual([['stdout', 'still here\n']]);
    const term = await connectStream(endpoint, creds, '/stream/session/keeps-going/pty');
    term.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo typed-after-restart\n') }));
    await term.next(() => term.frames.filter((f) => f.type === 'out').map((f) => unb64(f.data)).join('').includes('typed-after-restart'));
    term.ws.close();
    expect((await get(`${appBase}api/status`, { Cookie: cookie })).status).toBe(200);

    const gone = await admin.call('GET', '/session/dies-meanwhile');
    expect(gone).toMatchObject({ status: 'TERMINATED', statusInfo: 'container-not-found' });
    // Its cgroups went with it, though no manager saw it die.
    await waitFor(async () => doomedGroups.every((dir) => !existsSync(dir)), 10_000);
    expect((await admin.call('GET', '/session/keeps-going')).status).toBe('RUNNING');
    admin.close();
  }, 180_000);

  it('follows batch sessions across a restart: one that ended while the manager was down, one still running', async () => {
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));
    let admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    const batch = (name: string, command: string) => admin.call('POST', '/session', { body: { name, image: 'shell', type: 'batch', startupCommand: command } });
    await batch('batch-quick', 'sleep 1; exit 0');
    await batch('batch-long', 'sleep 8; echo finished > result.txt; exit 3');
    admin.close();

    await stopProcess(manager!.child, 'SIGKILL');
    manager = await startManagerProcess(env);
    admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    const ended = async (name: string) => {
      for (let i = 0; i < 300; i++) {
        const info = await admin.call('GET', `/session/${name}`);
        if (info.status === 'TERMINATED') return info;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${name} did not end`);
    };
    expect(await ended('batch-quick')).toMatchObject({ result: 'success', statusInfo: 'task-done' });
    const long = await ended('batch-long');
    expect(long).toMatchObject({ result: 'failure', statusInfo: 'task-failed' });
    admin.close();
  }, 120_000);
});
