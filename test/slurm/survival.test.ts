/**
 * Slurm sessions outlive the manager: after SIGKILL and a restart the same job is adopted (interpreter state and
 * apps answer over the stored channel), and a job cancelled outside Berth ends its session with a reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BerthClient } from '../../server/client/client';
import { freePort, startManagerProcess, stopProcess, type ManagerProcess } from '../helpers/process';
import { slurmCluster } from './cluster';
import { get } from '../helpers/poll';
import { seedEmbeddedDatabase } from '../helpers/embedded-template';

const cluster = slurmCluster();
let dataDir: string;
let env: Record<string, string>;
let manager: ManagerProcess | null = null;
let endpoint: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'berth-slurm-survive-'));
  seedEmbeddedDatabase(dataDir);
  const [port, appPort] = [await freePort(), await freePort()];
  endpoint = `http://127.0.0.1:${port}`;
  env = { BERTH_DATA_DIR: dataDir, BERTH_ROLES: 'manager,apps', BERTH_MANAGER_PORT: String(port), BERTH_APP_PORT: String(appPort), BERTH_SLURM_CONF: cluster.conf };
});
afterAll(async () => {
  if (manager) {
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));
    const admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    await admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: true } }).catch(() => undefined);
    admin.close();
    await stopProcess(manager.child);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a manager killed with SIGKILL while Slurm sessions run', () => {
  it('adopts the running job again; a job cancelled outside Berth ends its session with a reason', async () => {
    manager = await startManagerProcess(env);
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));
    let admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    const kept = await admin.call('POST', '/session', { body: { name: 'on-slurm', image: 'python', config: { scaling_group: 'slurm' } } });
    expect(kept.status).toBe('RUNNING');
    await admin.call('POST', '/session/on-slurm', { body: { mode: 'query', runId: null, code: 'remembered = "still here"' } });
    const started = await admin.call('POST', '/session/on-slurm/start-service', { body: { app: 'ttyd' } });
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${kept.sessionId}/add?app=ttyd`)).body);
    const auth = await get(added.url);
    const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
    const appBase = auth.headers.location!;
    admin.close();

    await stopProcess(manager.child, 'SIGKILL');
    manager = await startManagerProcess(env);
    admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    const same = await admin.call('POST', '/session/on-slurm', { body: { mode: 'query', runId: null, code: 'print(remembered)' } });
    expect(same.result.console).toEqual([['stdout', 'still here\n']]);
    expect((await get(appBase, { Cookie: cookie })).status).toBe(200);

    // The session's container id is its Slurm job.
    const jobId = (await admin.call('GET', '/session/on-slurm')).containerId;
    expect(jobId).toMatch(/^\d+$/);
    execFileSync('scancel', [jobId], { env: { ...process.env, SLURM_CONF: cluster.conf } });
    const deadline = Date.now() + 30_000;
    let info = await admin.call('GET', '/session/on-slurm');
    while (info.status !== 'TERMINATED' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      info = await admin.call('GET', `/session/${kept.sessionId}`);
    }
    expect(info).toMatchObject({ status: 'TERMINATED', statusInfo: 'job-cancelled' });
    admin.close();
  }, 120_000);
});
