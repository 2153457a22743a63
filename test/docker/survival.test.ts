/**
 * Containers outlive the manager: after SIGKILL and a restart the kernel's container is found again by its label
 * (interpreter state and apps answer). An engine that goes away becomes a LOST agent, and the sessions whose
 * containers went with it end in ERROR with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BerthClient } from '../../server/client/client';
import { startDockerEngine, type DockerTestEngine } from '../../scripts/docker-engine.mjs';
import { freePort, startManagerProcess, stopProcess, type ManagerProcess } from '../helpers/process';
import { startTestBerth, type TestBerth } from '../helpers/berth';
import { dockerEngine } from './engine';
import { get, waitFor } from '../helpers/poll';
import { seedEmbeddedDatabase } from '../helpers/embedded-template';

const engine = dockerEngine();
let dataDir: string;
let env: Record<string, string>;
let manager: ManagerProcess | null = null;
let endpoint: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'berth-docker-survive-'));
  seedEmbeddedDatabase(dataDir);
  const [port, appPort] = [await freePort(), await freePort()];
  endpoint = `http://127.0.0.1:${port}`;
  env = { BERTH_DATA_DIR: dataDir, BERTH_ROLES: 'manager,apps', BERTH_MANAGER_PORT: String(port), BERTH_APP_PORT: String(appPort), BERTH_DOCKER_HOSTS: engine.host };
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

describe('a manager killed with SIGKILL while container sessions run', () => {
  it('adopts the running container again by its label', async () => {
    manager = await startManagerProcess(env);
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));
    let admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    const kept = await admin.call('POST', '/session', { body: { name: 'in-docker', image: engine.images.python, config: { scaling_group: 'docker' } } });
    expect(kept.status).toBe('RUNNING');
    await admin.call('POST', '/session/in-docker', { body: { mode: 'query', runId: null, code: 'remembered = "still here"' } });
    const started = await admin.call('POST', '/session/in-docker/start-service', { body: { app: 'ttyd' } });
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${kept.sessionId}/add?app=ttyd`)).body);
    const auth = await get(added.url);
    const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
    const appBase = auth.headers.location!;
    const containerId = (await admin.call('GET', '/session/in-docker')).containerId;
    admin.close();

    await stopProcess(manager.child, 'SIGKILL');
    manager = await startManagerProcess(env);
    admin = new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
    const same = await admin.call('POST', '/session/in-docker', { body: { mode: 'query', runId: null, code: 'print(remembered)' } });
    expect(same.result.console).toEqual([['stdout', 'still here\n']]);
    expect((await admin.call('GET', '/session/in-docker')).containerId).toBe(containerId);
    // The app proxy still forwards to the adopted container's address.
    expect((await get(appBase, { Cookie: cookie })).status).toBe(200);
    await admin.call('DELETE', '/session/in-docker');
    admin.close();
  }, 180_000);
});

describe('an engine that goes away', () => {
  let second: DockerTestEngine;
  let t: TestBerth;

  beforeAll(async () => {
    second = await startDockerEngine();
    t = await startTestBerth({ docker: { hosts: [second.host], tlsDir: null, scalingGroup: 'docker', gpus: 0 } });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await second?.stop();
  });

  it('becomes a LOST agent, and its sessions end in ERROR with the reason', async () => {
    const agentId = (await t.app.db.selectFrom('agents').select('id').where('backend', '=', 'docker').executeTakeFirstOrThrow()).id;
    const user = await t.createUser();
    const created = await user.client.call('POST', '/session', { body: { name: 'on-the-engine', image: second.images.shell, group: 'default', config: { scaling_group: 'docker' } } });
    expect(created.status).toBe('RUNNING');
    await second.shutdown();
    await waitFor(async () => (await t.app.db.selectFrom('agents').select('status').where('id', '=', agentId).executeTakeFirst())?.status === 'LOST', 30_000);
    const info = await waitFor(async () => {
      const s = await user.client.call('GET', `/session/${created.sessionId}`);
      return s.status === 'ERROR' && s;
    }, 30_000);
    expect(info.statusInfo).toBe('agent-termination');
    // Nothing new is placed on a lost engine.
    const queued = await user.client.call('POST', '/session', { body: { name: 'after-loss', image: second.images.shell, group: 'default', enqueueOnly: true, config: { scaling_group: 'docker' } } });
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await user.client.call('GET', `/session/${queued.sessionId}`)).status).toBe('PENDING');
  }, 120_000);
});
