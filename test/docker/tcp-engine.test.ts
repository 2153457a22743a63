/**
 * Sessions on a tcp:// Docker engine with TLS client certificates (the test engine's dockerd also listens on
 * tcp://127.0.0.1 with --tlsverify; this Berth knows it only by that address): the engine as an agent, a session
 * RUNNING with its channel an exec through the Engine API (no socket on this machine), execution, the terminal,
 * files, logs and destroy; an image without Python refused there; a client certificate the engine does not trust
 * makes the agent LOST; bad input stays 4xx.
 */
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { connectStream, expectTerminalRuns, expectTtydRuns } from '../helpers/ws';
import { dockerEngine } from './engine';
import { connectEngine } from '../../server/agents/docker/engine';
import { startDockerBackend } from '../../server/agents/docker/register';
import { DockerAgent } from '../../server/agents/docker/docker-agent';
import { get, waitFor } from '../helpers/poll';
import { MODEL_DEFINITION, MODEL_SERVER_PY, send, uploadText } from '../helpers/model-folder';

const engine = dockerEngine();
const docker = new Docker({ socketPath: engine.socket });
let t: TestBerth;
let alice: TestUser;
let counter = 0;
const unique = (prefix = 'tcp') => `${prefix}-${++counter}-${Date.now().toString(36)}`;

beforeAll(async () => {
  t = await startTestBerth({ docker: { hosts: [engine.tcpHost], tlsDir: engine.tlsDir, scalingGroup: 'docker', gpus: 0 } }, { roles: ['manager', 'apps'] });
  alice = await t.createUser();
}, 120_000);
afterAll(() => t?.stop());

async function create(body: Record<string, unknown>) {
  return alice.client.call('POST', '/session', { body: { name: unique(), image: engine.images.python, group: 'default', ...body, config: { scaling_group: 'docker' } } });
}

async function run(name: string, code: string, mode: 'query' | 'batch' = 'query') {
  const body = mode === 'query' ? { mode, runId: null, code } : { mode, runId: null, code: '', options: { exec: code } };
  let result = (await alice.client.call('POST', `/session/${name}`, { body })).result;
  const console: [string, string][] = [...result.console];
  while (result.status === 'continued') {
    result = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: result.runId, code: '' } })).result;
    console.push(...result.console);
  }
  return { ...result, stdout: console.filter(([k]) => k === 'stdout').map(([, v]) => v).join('') };
}

describe('a tcp:// engine with TLS client certificates', () => {
  it('is one ALIVE agent named after its address', async () => {
    const agents = await t.app.db.selectFrom('agents').selectAll().where('backend', '=', 'docker').execute();
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ status: 'ALIVE', scaling_group: 'docker', addr: '127.0.0.1', id: `docker-127.0.0.1-${engine.tcpHost.split(':').pop()}` });
  });
});

describe('an interactive session on the tcp engine', () => {
  let name: string;
  let sessionId: string;
  let containerId: string;

  beforeAll(async () => {
    name = unique('interactive');
    const created = await create({ name });
    expect(created.status).toBe('RUNNING');
    sessionId = created.sessionId;
    containerId = (await t.app.db.selectFrom('kernels').select('container_id').where('session_id', '=', sessionId).executeTakeFirstOrThrow()).container_id!;
  }, 120_000);

  it('is reached by exec through the engine: the runner\'s socket is a tmpfs inside the container, its files a copy under the data directory', async () => {
    const kernel = await t.app.db.selectFrom('kernels').selectAll().where('session_id', '=', sessionId).executeTakeFirstOrThrow();
    expect(kernel.channel).toEqual({ kind: 'docker-exec', engine: engine.tcpHost, container: containerId, socket: '/run/berth/kernel.sock', user: '64000:64000', python: '/usr/bin/python3' });
    const info = await docker.getContainer(containerId).inspect();
    expect(info.HostConfig.Tmpfs).toHaveProperty('/run/berth');
    const runner = info.Mounts.find((m) => m.Destination === '/opt/berth/kernel_runner.py');
    expect(path.relative(t.app.settings.dataDir, runner!.Source)).toMatch(/^runner\/[0-9a-f]{16}\/kernel_runner\.py$/);
    // Nothing published: the session network stays internal.
    expect(info.HostConfig.PortBindings ?? {}).toEqual({});
  });

  it('executes code in the image\'s Python with state kept, and batch commands as the kernel\'s uid', async () => {
    await run(name, 'x = 41');
    expect((await run(name, 'print(x + 1)')).stdout).toBe('42\n');
    const who = await run(name, 'id -u; hostname; pwd', 'batch');
    expect(who.stdout.split('\n').slice(0, 3)).toEqual(['64000', 'main1', '/home/work']);
  });

  it('carries a large output whole through the exec bridge', async () => {
    const out = (await run(name, 'print("x" * 300000)')).stdout;
    expect(out).toBe('x'.repeat(300000) + '\n');
  });

  it('gives a real terminal over the pty stream', async () => {
    await expectTerminalRuns(t.url, alice, name);
  });

  it('uploads, lists and downloads its files, and serves its logs', async () => {
    const boundary = '----berth-tcp-test';
    const rawBody = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="src"; filename="up.txt"\r\nContent-Type: application/octet-stream\r\n\r\nuploaded over tcp\n\r\n--${boundary}--\r\n`);
    const upload = await alice.client.request('POST', `/session/${name}/upload`, { rawBody, contentType: `multipart/form-data; boundary=${boundary}` });
    expect(upload.status).toBeLessThan(300);
    expect((await run(name, 'cat up.txt; echo from-the-container > note.txt', 'batch')).stdout).toBe('uploaded over tcp\n');
    const listing = await alice.client.call('GET', `/session/${name}/files?path=.`);
    expect(listing.files.map((f: { filename: string }) => f.filename)).toEqual(expect.arrayContaining(['note.txt', 'up.txt']));
    const bytes = await alice.client.request('GET', `/session/${name}/download_single?file=note.txt`);
    expect(bytes.text).toBe('from-the-container\n');
    const logs = await alice.client.call('GET', `/session/${name}/logs`);
    expect(logs.result.logs).toContain('[runner] ready (python)');
  });

  /**
   * The app connections open now through the engine: the container's live execs bridging to address:port. (This
   * test engine is on this machine, where the container's address is reachable too: this is what shows the proxy
   * did not connect directly.)
   */
  async function bridged(): Promise<string[]> {
    const execs = await Promise.all(((await docker.getContainer(containerId).inspect()).ExecIDs ?? []).map((id) => docker.getExec(id).inspect()));
    return execs.filter((e) => e.Running).map((e) => e.ProcessConfig.arguments.slice(-2).join(':'));
  }

  it('serves its apps through the app proxy by exec into the container (HTTP and the web terminal\'s WebSocket)', async () => {
    const info = await docker.getContainer(containerId).inspect();
    const address = info.NetworkSettings.Networks[`berth-session-${sessionId}`].IPAddress;
    const started = await alice.client.call('POST', `/session/${name}/start-service`, { body: { app: 'ttyd' } });
    const route = await t.app.db.selectFrom('app_routes').selectAll().where('session_id', '=', sessionId).where('app', '=', 'ttyd').executeTakeFirstOrThrow();
    expect(route.host).toBe(address);
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=ttyd`)).body);
    const auth = await get(added.url);
    const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
    const base = auth.headers.location!;
    const page = await get(base, { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    // Keep-alive through the tunnel: a second request on the same agent.
    expect(JSON.parse((await get(`${base}token`, { Cookie: cookie })).body)).toEqual({ token: '' });
    const ws = await expectTtydRuns(base, cookie);
    expect(await bridged()).toContain(`${address}:${route.host_port}`);
    ws.close();
    // The `web` app of the image's labels (Python's http.server) answers through the proxy as well.
    const web = await alice.client.call('POST', `/session/${name}/start-service`, { body: { app: 'web' } });
    const webAdded = JSON.parse((await get(`${web.wsproxy_addr}/v2/proxy/${web.token}/${sessionId}/add?app=web`)).body);
    const webAuth = await get(webAdded.url);
    const webPage = await get(webAuth.headers.location!, { Cookie: String(webAuth.headers['set-cookie']![0]).split(';')[0] });
    expect(webPage.status).toBe(404);
    expect(webPage.body).toContain('Error response');
  });

  it('relays the httpproxy stream to an app in the container through the engine', async () => {
    const relay = await connectStream(t.url, alice, `/stream/session/${name}/httpproxy`, { app: 'web' });
    const route = await t.app.db.selectFrom('app_routes').selectAll().where('session_id', '=', sessionId).where('app', '=', 'web').executeTakeFirstOrThrow();
    await waitFor(async () => (await bridged()).includes(`${route.host}:${route.host_port}`));
    relay.ws.send(Buffer.from('GET / HTTP/1.0\r\n\r\n'));
    const text = () => relay.frames.map((f: Buffer) => f.toString()).join('');
    await relay.next(() => text().includes('</html>'));
    expect(text()).toMatch(/^HTTP\/1\.0 200/);
    expect(text()).toContain('up.txt');
    relay.ws.close();
  });

  it('is found again by a new agent of the same engine (a restarted manager), which reaches its runner by exec', async () => {
    const kernel = await t.app.db.selectFrom('kernels').selectAll().where('session_id', '=', sessionId).executeTakeFirstOrThrow();
    const fresh = new DockerAgent({
      engine: await connectEngine(engine.tcpHost, engine.tlsDir),
      dataDir: t.app.settings.dataDir,
      runnerPath: path.join(t.app.settings.homeDir, 'server/agents/sandbox/kernel_runner.py'),
      kernelUid: t.app.settings.kernelUid,
      log: t.app.log,
    });
    try {
      expect(await fresh.adoptKernel(kernel.id)).toBe(true);
      // The same interpreter: the name defined by an earlier run completes.
      expect(await fresh.complete(kernel.id, 'x')).toContain('x');
      expect(await fresh.adoptKernel('no-such-kernel')).toBe(false);
    } finally {
      await fresh.close();
    }
  });

  it('removes its container and network on destroy', async () => {
    await alice.client.call('DELETE', `/session/${name}`);
    expect((await alice.client.call('GET', `/session/${name}`)).status).toBe('TERMINATED');
    await expect(docker.getContainer(containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    await expect(docker.getNetwork(`berth-session-${sessionId}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('a model service on the tcp engine', () => {
  it('is probed healthy and serves its endpoint through the engine, and a failing health check makes its route unhealthy', async () => {
    // In a container the server listens on the container's address (the session network), not on loopback.
    await alice.client.call('POST', '/folders', { body: { name: 'tcp-model', usage_mode: 'model' } });
    await uploadText(alice.client, 'tcp-model', 'server.py', MODEL_SERVER_PY.replace("('127.0.0.1', port)", "('0.0.0.0', port)"));
    await uploadText(alice.client, 'tcp-model', 'model-definition.yaml', MODEL_DEFINITION.replace('max_retries: 3', 'max_retries: 1').replace('expected_status_code: 200', 'expected_status_code: 200\n        interval: 0.5'));
    const created = await alice.client.call('POST', '/services', {
      body: {
        name: 'tcp-answer', desired_session_count: 1, image: engine.images.python, arch: 'x86_64', group: 'default', domain: 'default', cluster_size: 1, cluster_mode: 'single-node', open_to_public: false,
        config: { model: 'tcp-model', model_mount_destination: '/home/work/model', scaling_group: 'docker' },
      },
    });
    const id = created.endpoint_id;
    try {
      const info = await waitFor(async () => {
        const s = await alice.client.call('GET', `/services/${id}`);
        return s.active_routes.length === 1 && s;
      }, 90_000);
      const route = await t.app.db.selectFrom('routings').selectAll().where('id', '=', info.active_routes[0].route_id).executeTakeFirstOrThrow();
      expect(route.status).toBe('healthy');
      const { token } = await alice.client.call('POST', `/services/${id}/token`, { body: { duration: '1h' } });
      const answer = await send('GET', `${created.service_endpoint}/predict?x=1`, { Authorization: `Bearer ${token}` });
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ answer: 42, path: '/predict?x=1' });
      // The probes reach the server only through the engine: once /health answers 500, the route turns unhealthy.
      expect((await send('GET', `${created.service_endpoint}/sick`, { Authorization: `Bearer ${token}` })).status).toBe(200);
      await waitFor(async () => (await t.app.db.selectFrom('routings').select('status').where('id', '=', route.id).executeTakeFirst())?.status === 'unhealthy', 30_000);
    } finally {
      await alice.client.call('DELETE', `/services/${id}`);
      await waitFor(async () => (await docker.listContainers({ all: true, filters: { label: ['berth.managed=1'] } })).length === 0, 60_000);
    }
  });
});

describe('refusals', () => {
  it('refuses an image without Python on a remote engine with a clear reason (no host runtime to lend)', async () => {
    const created = await alice.client.request('POST', '/session', { body: { name: unique(), image: engine.images.shell, group: 'default', config: { scaling_group: 'docker' } } });
    const id = created.status < 300 ? created.json().sessionId : null;
    const info = id ? await waitFor(async () => { const s = await alice.client.call('GET', `/session/${id}`); return ['ERROR', 'TERMINATED', 'CANCELLED'].includes(s.status) && s; }) : null;
    const text = info ? JSON.stringify(info) : created.text;
    expect(text).toContain('has no Python');
    expect(await docker.listContainers({ filters: { label: ['berth.managed=1'] } }).then((l) => l.length)).toBe(0);
  });

  it('keeps bad input 4xx', async () => {
    const nul = await alice.client.request('POST', '/session', { body: { name: 'bad\u0000name', image: engine.images.python, group: 'default', config: { scaling_group: 'docker' } } });
    expect(nul.status).toBe(400);
    const registry = await alice.client.request('POST', '/session', { body: { name: unique(), image: 'evil.example.com/miner:1', group: 'default', config: { scaling_group: 'docker' } } });
    expect(registry.status).toBe(400);
  });

  it('refuses a tcp engine without TLS files, and makes an engine that refuses Berth\'s client certificate a LOST agent', async () => {
    await expect(connectEngine(engine.tcpHost, null)).rejects.toThrow(/BERTH_DOCKER_TLS_DIR/);
    // The same engine by another name (its certificate is also for localhost), with a client certificate of another CA.
    const url = engine.tcpHost.replace('127.0.0.1', 'localhost');
    const untrusted = await startDockerBackend(t.app, { hosts: [url], tlsDir: engine.untrustedTlsDir, scalingGroup: 'docker-untrusted', gpus: 0 }, path.join(t.app.settings.homeDir, 'server/agents/sandbox/kernel_runner.py'), 'test');
    try {
      const row = await t.app.db.selectFrom('agents').selectAll().where('id', '=', untrusted.agents[0].id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'LOST', scaling_group: 'docker-untrusted' });
    } finally {
      await untrusted.stop();
    }
  });
});
