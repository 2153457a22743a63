/**
 * Sessions in containers on a real Docker engine (the test command starts a private dockerd with two test images:
 * a Debian minbase with python3 and Backend.AI's labels, and a busybox image without Python): the engine as an
 * agent, execution, terminal, files, logs, batch exit codes, apps through the app proxy at the container's address,
 * folders, cluster sessions by hostname on their private network, commit and relaunch, the container's confinement,
 * a container removed from outside, adoption after a manager restart, and bad input.
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { connectStream, b64, unb64, expectTerminalRuns } from '../helpers/ws';
import { dockerEngine } from './engine';
import { folderRootPath } from '../../server/storage/usage';
import { toUuid } from '../../server/storage/ids';
import { get, waitFor } from '../helpers/poll';
import { startRegistry } from './registry';

const engine = dockerEngine();
const docker = new Docker({ socketPath: engine.socket });
let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let counter = 0;
const unique = (prefix = 'dock') => `${prefix}-${++counter}-${Date.now().toString(36)}`;

beforeAll(async () => {
  t = await startTestBerth({ docker: { hosts: [engine.host], tlsDir: null, scalingGroup: 'docker', gpus: 0 } }, { roles: ['manager', 'apps'] });
  alice = await t.createUser();
  bob = await t.createUser();
}, 120_000);
afterAll(() => t?.stop());

async function create(user: TestUser, body: Record<string, unknown>) {
  const config = { scaling_group: 'docker', ...((body.config as object) ?? {}) };
  return user.client.call('POST', '/session', { body: { name: unique(), image: engine.images.python, group: 'default', ...body, config } });
}

/** `query`: code for the interpreter; `batch`: a shell command. */
async function run(user: TestUser, name: string, code: string, mode: 'query' | 'batch' = 'query') {
  const body = mode === 'query' ? { mode, runId: null, code } : { mode, runId: null, code: '', options: { exec: code } };
  let result = (await user.client.call('POST', `/session/${name}`, { body })).result;
  const console: [string, string][] = [...result.console];
  while (result.status === 'continued') {
    result = (await user.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: result.runId, code: '' } })).result;
    console.push(...result.console);
  }
  return { ...result, console, stdout: console.filter(([k]) => k === 'stdout').map(([, v]) => v).join(''), stderr: console.filter(([k]) => k === 'stderr').map(([, v]) => v).join('') };
}

async function mainKernel(sessionId: string) {
  return t.app.db.selectFrom('kernels').selectAll().where('session_id', '=', sessionId).where('cluster_role', '=', 'main').executeTakeFirstOrThrow();
}

async function sessionIn(user: TestUser, id: string, statuses: string[], timeoutMs = 30_000) {
  return waitFor(async () => {
    const info = await user.client.call('GET', `/session/${id}`);
    return statuses.includes(info.status) && info;
  }, timeoutMs);
}

describe('the Docker engine as an agent', () => {
  it('is one ALIVE agent of the docker scaling group with the engine\'s CPUs and memory', async () => {
    const info = await docker.info();
    const agents = await t.app.db.selectFrom('agents').selectAll().where('backend', '=', 'docker').execute();
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ status: 'ALIVE', scaling_group: 'docker', addr: '127.0.0.1' });
    expect(agents[0].available_slots).toMatchObject({ cpu: String(info.NCPU), mem: String(info.MemTotal) });
    const groups = await alice.client.call('GET', '/scaling-groups?group=default');
    expect(groups.scaling_groups.map((g: { name: string }) => g.name)).toContain('docker');
  });

  it('lists the engine\'s images in GraphQL with the runtime their Backend.AI labels describe', async () => {
    const { data } = await t.admin.call('POST', '/admin/gql', { body: { query: '{ images { name registry labels { key value } resource_limits { key min } } }' } });
    const python = data.images.find((i: { name: string }) => i.name === engine.images.python);
    const shell = data.images.find((i: { name: string }) => i.name === engine.images.shell);
    expect(python).toBeTruthy();
    expect(shell).toBeTruthy();
    expect(python.registry).toBe('docker.io');
    expect(python.labels).toContainEqual({ key: 'ai.backend.runtime-type', value: 'python' });
    expect(python.resource_limits).toContainEqual(expect.objectContaining({ key: 'cpu', min: '0.5' }));
    const rows = await t.app.db.selectFrom('images').selectAll().where('name', 'in', [engine.images.python, engine.images.shell]).orderBy('name').execute();
    expect(rows.map((r) => r.runtime)).toEqual(['python', 'app']);
    // The `web` app of the label, with its command from the image's service-def.
    expect(rows[0].service_ports).toEqual([{ name: 'web', protocol: 'http', ports: [8000], argv: ['/usr/bin/python3', '-m', 'http.server', '{port}'] }]);
  });
});

describe('rescanning the engine', () => {
  it('adds an image tagged on the engine since, and retires one that is gone', async () => {
    const repo = `berth-test/rescanned-${Date.now().toString(36)}`;
    await docker.getImage(engine.images.shell).tag({ repo, tag: 'v1' });
    const rescan = async () => {
      const { data } = await t.admin.call('POST', '/admin/gql', { body: { query: 'mutation { rescan_images { ok task_id } }' } });
      expect(data.rescan_images.ok).toBe(true);
    };
    await rescan();
    const row = await waitFor(() => t.app.db.selectFrom('images').selectAll().where('name', '=', `${repo}:v1`).where('is_active', '=', true).executeTakeFirst());
    expect(row).toMatchObject({ registry: 'docker.io', runtime: 'app', tag: 'v1' });
    await docker.getImage(`${repo}:v1`).remove();
    await rescan();
    await waitFor(async () => (await t.app.db.selectFrom('images').select('is_active').where('id', '=', row.id).executeTakeFirstOrThrow()).is_active === false);
  });
});

describe('preload and unload on the engine', () => {
  it('refuses to pull from a registry that is not configured, and unload removes the engine\'s copy', async () => {
    const agentId = (await t.app.db.selectFrom('agents').select('id').where('backend', '=', 'docker').executeTakeFirstOrThrow()).id;
    const refused = await t.admin.call('POST', '/admin/gql', { body: { query: `mutation { preload_image(references: ["evil.example.com/miner:1"], target_agents: ["${agentId}"]) { ok msg task_id } }` } });
    expect(refused.data?.preload_image?.ok ?? false).toBe(false);
    expect(JSON.stringify(refused)).toContain('not configured');
    const repo = `berth-test/unload-${Date.now().toString(36)}`;
    await docker.getImage(engine.images.shell).tag({ repo, tag: 'v1' });
    const unload = await t.admin.call('POST', '/admin/gql', { body: { query: `mutation { unload_image(references: ["${repo}:v1"], target_agents: ["${agentId}"]) { ok task_id } }` } });
    expect(unload.data.unload_image.ok).toBe(true);
    await waitFor(() => docker.getImage(`${repo}:v1`).inspect().then(() => false, () => true));
  });
});

describe('pulling from a configured registry', () => {
  it('preloads an image from a registry in /config/docker-registries onto the engine, into the catalog, and launches it', async () => {
    const registry = await startRegistry();
    try {
      // The registry holds an image the engine does not have: pushed, then the engine's copy removed.
      const reference = `${registry.host}/berth-test/pulled:v1`;
      await docker.getImage(engine.images.python).tag({ repo: `${registry.host}/berth-test/pulled`, tag: 'v1' });
      // dockerd asks every push for an X-Registry-Auth header, even for a registry without accounts.
      const push = await docker.getImage(reference).push({ authconfig: { username: '', password: '', serveraddress: registry.host } });
      await new Promise<void>((resolve, reject) => docker.modem.followProgress(push, (err: Error | null, events: { error?: string }[]) => (err || events.find((e) => e.error) ? reject(err ?? new Error(events.find((e) => e.error)!.error)) : resolve())));
      await docker.getImage(reference).remove();
      await expect(docker.getImage(reference).inspect()).rejects.toMatchObject({ statusCode: 404 });

      const registered = await t.admin.call('POST', '/admin/gql', {
        body: { query: 'mutation($h: String!, $u: String!) { create_container_registry(hostname: $h, props: { url: $u, type: "docker" }) { ok msg } }', variables: { h: registry.host, u: `http://${registry.host}` } },
      });
      expect(registered.data.create_container_registry.ok, JSON.stringify(registered)).toBe(true);
      const agentId = (await t.app.db.selectFrom('agents').select('id').where('backend', '=', 'docker').executeTakeFirstOrThrow()).id;
      const preload = await t.admin.call('POST', '/admin/gql', { body: { query: `mutation { preload_image(references: ["${reference}"], target_agents: ["${agentId}"]) { ok msg task_id } }` } });
      expect(preload.data.preload_image.ok, JSON.stringify(preload)).toBe(true);
      const task = await waitFor(() => t.app.db.selectFrom('bgtasks').selectAll().where('id', '=', preload.data.preload_image.task_id).where('finished_at', 'is not', null).executeTakeFirst(), 60_000);
      expect(task.status, JSON.stringify(task)).toBe('done');
      expect((await docker.getImage(reference).inspect()).Config.Labels?.['ai.backend.runtime-type']).toBe('python');
      expect(await t.app.db.selectFrom('images').select('name').where('name', '=', reference).where('is_active', '=', true).executeTakeFirst()).toBeDefined();

      const session = await create(alice, { image: reference });
      expect(session.status).toBe('RUNNING');
      expect((await run(alice, session.sessionName, 'print(6 * 7)')).stdout).toBe('42\n');
      await alice.client.call('DELETE', `/session/${session.sessionName}`);
    } finally {
      await registry.stop();
    }
  });
});

describe('loading a docker save archive (air-gapped sites)', () => {
  let folderName: string;
  let folderDir: string;

  beforeAll(async () => {
    folderName = unique('images');
    const folder = await t.admin.call('POST', '/folders', { body: { name: folderName } });
    const row = await t.app.db.selectFrom('vfolders').selectAll().where('id', '=', toUuid(folder.id)!).executeTakeFirstOrThrow();
    folderDir = folderRootPath(t.app, row);
  });

  const taskEnd = (taskId: string) => waitFor(() => t.app.db.selectFrom('bgtasks').selectAll().where('id', '=', taskId).where('finished_at', 'is not', null).executeTakeFirst(), 60_000);

  it('loads an archive uploaded to a folder onto the engine; the image is in the catalog and launches', async () => {
    const repo = `berth-test/loaded-${Date.now().toString(36)}`;
    await docker.getImage(engine.images.shell).tag({ repo, tag: 'v1' });
    const archive = await docker.getImage(`${repo}:v1`).get();
    await pipeline(archive, createWriteStream(path.join(folderDir, 'saved.tar')));
    await docker.getImage(`${repo}:v1`).remove();
    expect(await t.app.db.selectFrom('images').select('id').where('name', '=', `${repo}:v1`).where('is_active', '=', true).executeTakeFirst()).toBeUndefined();

    const { task_id } = await t.admin.call('POST', '/image/load', { body: { folder: folderName, path: 'saved.tar' } });
    const task = await taskEnd(task_id);
    expect(task).toMatchObject({ status: 'done' });
    expect(task.message).toContain(`${repo}:v1`);
    await docker.getImage(`${repo}:v1`).inspect();
    expect(await t.app.db.selectFrom('images').select(['runtime', 'registry']).where('name', '=', `${repo}:v1`).where('is_active', '=', true).executeTakeFirst()).toEqual({ runtime: 'app', registry: 'docker.io' });
    const session = await create(alice, { image: `${repo}:v1`, type: 'batch', startupCommand: 'echo loaded', enqueueOnly: true });
    expect((await sessionIn(alice, session.sessionId, ['TERMINATED'], 60_000)).result).toBe('success');
  });

  it('refuses what is not an image archive, a path outside the folder, another user, and unknown engines, with 4xx', async () => {
    writeFileSync(path.join(folderDir, 'notes.txt'), 'not a tar\n'.repeat(100));
    const call = (who: TestUser | { client: TestBerth['admin'] }, body: Record<string, unknown>) => who.client.call('POST', '/image/load', { body }).then(() => 200, (err: { status: number; problem: { detail?: string } }) => err.status);
    const admin = { client: t.admin };
    expect(await call(admin, { folder: folderName, path: 'notes.txt' })).toBe(400);
    expect(await call(admin, { folder: folderName, path: '../../../../etc/passwd' })).toBe(400);
    expect(await call(admin, { folder: folderName, path: 'missing.tar' })).toBe(400);
    expect(await call(admin, { folder: folderName, path: 'saved.tar', agents: ['docker-nowhere'] })).toBe(400);
    expect(await call(admin, { folder: 'no-such-folder', path: 'saved.tar' })).toBe(404);
    expect(await call(alice, { folder: folderName, path: 'saved.tar' })).toBe(403);
  });
});

describe('an interactive session in a container', () => {
  let name: string;
  let sessionId: string;
  let containerId: string;

  beforeAll(async () => {
    name = unique('interactive');
    const created = await create(alice, { name });
    expect(created.status).toBe('RUNNING');
    sessionId = created.sessionId;
    containerId = (await mainKernel(sessionId)).container_id!;
  }, 120_000);

  it('is a container of the session\'s image on the engine, reached over a Unix socket', async () => {
    const info = await docker.getContainer(containerId).inspect();
    expect(info.State.Running).toBe(true);
    expect(info.Config.Image).toBe(engine.images.python);
    expect(info.Config.Labels['ai.backend.session-id']).toBe(sessionId);
    const kernel = await mainKernel(sessionId);
    expect(kernel.channel).toMatchObject({ kind: 'unix' });
    expect(kernel.agent_id).toMatch(/^docker-/);
  });

  it('runs the image\'s Python (not the host\'s) with state kept between runs', async () => {
    await run(alice, name, 'x = 41');
    expect((await run(alice, name, 'print(x + 1)')).stdout).toBe('42\n');
    const os = await run(alice, name, 'print(open("/etc/os-release").read().split("\\n")[0])');
    expect(os.stdout).toContain('Debian GNU/Linux 12');
    const who = await run(alice, name, 'id -u; hostname; pwd', 'batch');
    expect(who.stdout.split('\n').slice(0, 3)).toEqual(['64000', 'main1', '/home/work']);
  });

  it('is confined: no root, no capabilities, no new privileges, read-only image, no Docker socket, no host network', async () => {
    const info = await docker.getContainer(containerId).inspect();
    expect(info.Config.User).toBe('64000:64000');
    expect(info.HostConfig.Privileged).toBe(false);
    expect(info.HostConfig.CapDrop).toEqual(['ALL']);
    expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges');
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    expect(info.HostConfig.NetworkMode).toBe(`berth-session-${sessionId}`);
    expect(info.HostConfig.PidsLimit).toBeGreaterThan(0);
    expect(info.HostConfig.Memory).toBeGreaterThan(0);
    expect(info.HostConfig.NanoCpus).toBeGreaterThan(0);
    expect(info.HostConfig.ShmSize).toBe(64 * 2 ** 20);
    // Nothing of the host beyond the scratch directory, the runner's socket directory and the runner's files.
    const sources = info.Mounts.map((m) => m.Source);
    expect(sources.some((s) => s.includes('docker.sock') || s === '/' || s === '/var/run' || s === '/run')).toBe(false);
    const inside = await run(alice, name, [
      'grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status',
      'touch /usr/x 2>&1 || echo ro-usr',
      'touch /tmp/x && echo tmp-ok',
      'ls /var/run/docker.sock /run/docker.sock 2>&1 | grep -c "No such"',
      'python3 -c "import socket; s=socket.socket(); s.settimeout(2); s.connect((\'1.1.1.1\', 80))" 2>&1 | tail -1',
    ].join('; '), 'batch');
    expect(inside.stdout).toMatch(/CapEff:\s+0000000000000000/);
    expect(inside.stdout).toMatch(/CapBnd:\s+0000000000000000/);
    expect(inside.stdout).toMatch(/NoNewPrivs:\s+1/);
    expect(inside.stdout).toContain('ro-usr');
    expect(inside.stdout).toContain('tmp-ok');
    expect(inside.stdout).toContain('2\n');
    expect(inside.stdout).toMatch(/unreachable|timed out|Network is unreachable|OSError/i);
  });

  it('gives a real terminal over the pty stream', async () => {
    await expectTerminalRuns(t.url, alice, name);
  });

  it('serves its files and logs', async () => {
    await run(alice, name, 'echo from-the-container > note.txt', 'batch');
    const listing = await alice.client.call('GET', `/session/${name}/files?path=.`);
    expect(listing.files.map((f: { filename: string }) => f.filename)).toContain('note.txt');
    const bytes = await alice.client.request('GET', `/session/${name}/download_single?file=note.txt`);
    expect(bytes.text).toBe('from-the-container\n');
    const logs = await alice.client.call('GET', `/session/${name}/logs`);
    expect(logs.result.logs).toContain('[runner] ready (python)');
  });

  it('publishes its apps through the app proxy at the container\'s address on the session network', async () => {
    const info = await docker.getContainer(containerId).inspect();
    const address = info.NetworkSettings.Networks[`berth-session-${sessionId}`].IPAddress;
    for (const app of ['ttyd', 'web']) {
      const started = await alice.client.call('POST', `/session/${name}/start-service`, { body: { app } });
      const route = await t.app.db.selectFrom('app_routes').selectAll().where('session_id', '=', sessionId).where('app', '=', app).executeTakeFirstOrThrow();
      expect(route.host).toBe(address);
      const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=${app}`)).body);
      const auth = await get(added.url);
      const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
      const page = await get(auth.headers.location!, { Cookie: cookie });
      expect(page.status).toBe(app === 'ttyd' ? 200 : 404);
      if (app === 'ttyd') expect(page.headers['content-type']).toContain('text/html');
      else expect(page.body).toContain('Error response');
    }
  });

  it('reports the container\'s figures', async () => {
    const figures = await waitFor(async () => {
      const agent = t.app.agents.get((await mainKernel(sessionId)).agent_id!)!;
      const stats = agent.stats((await mainKernel(sessionId)).id);
      return stats.memoryBytes !== null && stats;
    }, 20_000);
    expect(figures.memoryBytes).toBeGreaterThan(0);
    expect(figures.pids).toBeGreaterThan(0);
  });

  it('is not another user\'s to touch', async () => {
    expect((await bob.client.request('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code: '1' } })).status).toBe(404);
  });

  it('removes its container and network on destroy', async () => {
    await alice.client.call('DELETE', `/session/${name}`);
    expect((await alice.client.call('GET', `/session/${name}`)).status).toBe('TERMINATED');
    await expect(docker.getContainer(containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    await expect(docker.getNetwork(`berth-session-${sessionId}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('an image without Python', () => {
  it('runs terminals and batch commands on the host\'s Python runtime lent read-only (the image has none)', async () => {
    const created = await create(alice, { image: engine.images.shell });
    expect(created.status).toBe('RUNNING');
    const batch = await run(alice, created.sessionId, 'echo "$((6*7))"; cat /etc/os-release 2>&1 | head -1; ls /usr/bin/python3 2>&1', 'batch');
    expect(batch.stdout).toContain('42\n');
    expect(batch.stdout).toMatch(/No such file/);
    const term = await connectStream(t.url, alice, `/stream/session/${created.sessionId}/pty`);
    const output = () => term.frames.filter((f) => f.type === 'out').map((f) => unb64(f.data)).join('');
    term.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo "busy=$((40+2))"\n') }));
    await term.next(() => output().includes('busy=42'));
    term.ws.close();
    await alice.client.call('DELETE', `/session/${created.sessionId}`);
  });

  it('answers code execution with a clear error, over HTTP and WebSocket, and still runs batch commands', async () => {
    const created = await create(alice, { image: engine.images.shell });
    const refused = await alice.client.request('POST', `/session/${created.sessionId}`, { body: { mode: 'query', runId: null, code: 'print(1)' } });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ type: 'https://errors.berth.dev/invalid-api-params', data: { mode: 'query needs an interpreter' } });
    expect(refused.json().detail).toContain('no interpreter');
    const ws = await connectStream(t.url, alice, `/stream/session/${created.sessionId}/execute`);
    ws.ws.send(JSON.stringify({ mode: 'query', code: 'print(1)' }));
    expect(await ws.next((f) => f.status === 'error')).toMatchObject({ msg: expect.stringContaining('no interpreter') });
    expect((await ws.closed).code).toBe(1003);
    // Nothing ran: the refusal counts no query; a batch command afterwards runs as usual.
    expect((await alice.client.call('GET', `/session/${created.sessionId}`)).numQueriesExecuted).toBe(0);
    expect((await run(alice, created.sessionId, 'echo batch-ok', 'batch')).stdout).toContain('batch-ok');
    await alice.client.call('DELETE', `/session/${created.sessionId}`);
  });
});

describe('batch sessions in containers', () => {
  it('succeed and fail by their command\'s exit code', async () => {
    const ok = await create(alice, { type: 'batch', image: engine.images.shell, startupCommand: 'echo done > out.txt; exit 0', enqueueOnly: true });
    const bad = await create(alice, { type: 'batch', image: engine.images.shell, startupCommand: 'exit 3', enqueueOnly: true });
    expect((await sessionIn(alice, ok.sessionId, ['TERMINATED'], 60_000)).result).toBe('success');
    expect((await sessionIn(alice, bad.sessionId, ['TERMINATED'], 60_000)).result).toBe('failure');
  });
});

describe('a cluster session', () => {
  it('runs one container per kernel on the session\'s own network, where they reach each other by hostname and nothing else', async () => {
    const created = await create(alice, { clusterSize: 2, image: engine.images.python });
    expect(created.status).toBe('RUNNING');
    const kernels = await t.app.db.selectFrom('kernels').selectAll().where('session_id', '=', created.sessionId).orderBy('cluster_idx').execute();
    expect(new Set(kernels.map((k) => k.container_id)).size).toBe(2);
    const sub = kernels.find((k) => k.cluster_role !== 'main')!;
    const subInfo = await docker.getContainer(sub.container_id!).inspect();
    const subAddress = subInfo.NetworkSettings.Networks[`berth-session-${created.sessionId}`].IPAddress;
    const lookup = await run(alice, created.sessionId, `import socket; print(socket.gethostbyname("${sub.cluster_hostname}"))`);
    expect(lookup.stdout.trim()).toBe(subAddress);
    // Another session's kernel is on another network: not reachable by name.
    const other = await create(alice, { image: engine.images.shell });
    const otherName = (await mainKernel(other.sessionId)).cluster_hostname;
    const miss = await run(alice, created.sessionId, `import socket\ntry:\n    print(socket.gethostbyname("berth-kernel-${(await mainKernel(other.sessionId)).id}"))\nexcept OSError:\n    print("unresolved")`);
    expect(miss.stdout.trim()).toBe('unresolved');
    expect(otherName).toBe('main1');
    await alice.client.call('DELETE', `/session/${created.sessionId}`);
    await alice.client.call('DELETE', `/session/${other.sessionId}`);
  });
});

describe('folders in containers', () => {
  it('bind-mounts a folder read-write, and read-only when asked', async () => {
    const folder = unique('data');
    await alice.client.call('POST', '/folders', { body: { name: folder } });
    const up = await alice.client.call('POST', `/folders/${folder}/request-upload`, { body: { path: 'hello.txt', size: 6 } });
    const res = await fetch(`${up.url}?token=${up.token}`, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: 'hello\n' });
    expect(res.status).toBe(204);
    const rw = await create(alice, { image: engine.images.shell, config: { mounts: [folder] } });
    const wrote = await run(alice, rw.sessionId, `cat /home/work/${folder}/hello.txt && echo more > /home/work/${folder}/more.txt && echo wrote`, 'batch');
    expect(wrote.stdout).toBe('hello\nwrote\n');
    await alice.client.call('DELETE', `/session/${rw.sessionId}`);
    const ro = await create(alice, { image: engine.images.shell, config: { mounts: [folder], mount_options: { [folder]: { permission: 'ro' } } } });
    const refused = await run(alice, ro.sessionId, `cat /home/work/${folder}/more.txt; touch /home/work/${folder}/x 2>&1 || echo refused`, 'batch');
    expect(refused.stdout).toContain('more\n');
    expect(refused.stdout).toContain('refused');
    await alice.client.call('DELETE', `/session/${ro.sessionId}`);
  });
});

describe('commit and relaunch', () => {
  it('commits a session to a real image with the labels, which another session launches with the files', async () => {
    const created = await create(alice, {});
    await run(alice, created.sessionId, 'echo kept > kept.txt', 'batch');
    const tag = unique('snap');
    const commit = await alice.client.call('POST', `/session/${created.sessionId}/commit`, { body: { filename: tag } });
    expect(commit.bgtask_id).toBeTruthy();
    const image = await waitFor(() => t.app.db.selectFrom('images').selectAll().where('name', 'like', `%/python:${tag}`).executeTakeFirst(), 60_000);
    // The image carries the files itself, too.
    const saved = await docker.getImage(image.name).inspect();
    expect(saved.RootFS.Layers!.length).toBeGreaterThan((await docker.getImage(engine.images.python).inspect()).RootFS.Layers!.length);
    const onEngine = await docker.getImage(image.name).inspect();
    expect(onEngine.Config.Labels['ai.backend.runtime-type']).toBe('python');
    expect(onEngine.Config.Labels['ai.backend.committed-from']).toBe(created.sessionId);
    // The commit runs like its base, not like a kernel.
    expect(onEngine.Config.Entrypoint ?? null).toBeNull();
    expect((onEngine.Config.Env ?? []).some((e) => e.startsWith('BERTH_SESSION_ID='))).toBe(false);
    await alice.client.call('DELETE', `/session/${created.sessionId}`);
    const again = await create(alice, { image: image.name });
    expect(again.status).toBe('RUNNING');
    expect((await run(alice, again.sessionId, 'cat kept.txt', 'batch')).stdout).toBe('kept\n');
    expect((await docker.getContainer((await mainKernel(again.sessionId)).container_id!).inspect()).Config.Image).toBe(image.name);
    await alice.client.call('DELETE', `/session/${again.sessionId}`);
  });
});

describe('image import on the engine', () => {
  it('converts an engine image into a labelled one on the engine after checking its Python in a container', async () => {
    const target = `berth-test/imported-${Date.now().toString(36)}:1.0`;
    const answer = await t.admin.call('POST', '/image/import', { body: {
      src: engine.images.python, target, architecture: 'x86_64', launchOptions: { scalingGroup: 'docker', group: 'default' }, brand: 'Imported',
      baseDistro: 'ubuntu', minCPU: 1, minMemory: '256m', preferredSharedMemory: '64m', runtimeType: 'python', runtimePath: '/usr/bin/python3',
    } });
    expect(answer.importTask.sessionId).toMatch(/^image-import-/);
    const row = await waitFor(() => t.app.db.selectFrom('images').selectAll().where('name', '=', target).executeTakeFirst(), 90_000);
    expect(row).toMatchObject({ registry: 'docker.io', runtime: 'python' });
    const labels = (await docker.getImage(target).inspect()).Config.Labels;
    expect(labels).toMatchObject({ 'ai.backend.imported-from': engine.images.python, 'ai.backend.brand': 'Imported', 'ai.backend.runtime-path': '/usr/bin/python3' });
    const session = await create(alice, { image: target });
    expect((await run(alice, session.sessionId, 'print(6 * 7)')).stdout).toBe('42\n');
    await alice.client.call('DELETE', `/session/${session.sessionId}`);
  });
});

describe('containers changed outside Berth', () => {
  it('a container removed from outside ends its session in ERROR with the reason', async () => {
    const created = await create(alice, { image: engine.images.shell });
    await docker.getContainer((await mainKernel(created.sessionId)).container_id!).remove({ force: true });
    const info = await sessionIn(alice, created.sessionId, ['ERROR']);
    expect(info.statusInfo).toBe('container-not-found');
  });

  it('a container that dies ends its session with its exit code', async () => {
    const created = await create(alice, { image: engine.images.shell });
    await docker.getContainer((await mainKernel(created.sessionId)).container_id!).kill({ signal: 'SIGKILL' });
    const info = await sessionIn(alice, created.sessionId, ['TERMINATED', 'ERROR']);
    expect(info.statusInfo).toBe('self-terminated');
    expect(JSON.stringify(info.statusData)).toContain('137');
  });
});

describe('bad input', () => {
  it('refuses a host image on the docker group, a container image elsewhere, and an unconfigured registry', async () => {
    const host = await alice.client.request('POST', '/session', { body: { name: unique(), image: 'python', group: 'default', config: { scaling_group: 'docker' } } });
    expect(host.status).toBe(400);
    const elsewhere = await alice.client.request('POST', '/session', { body: { name: unique(), image: engine.images.python, group: 'default' } });
    expect(elsewhere.status).toBe(400);
    const registry = await alice.client.request('POST', '/session', { body: { name: unique(), image: 'evil.example.com/miner:1', group: 'default', config: { scaling_group: 'docker' } } });
    expect(registry.status).toBe(400);
    expect(registry.text).toContain("not configured");
    expect(await docker.listContainers({ all: true, filters: { label: ['berth.managed=1'] } }).then((l) => l.filter((c) => c.State === 'running').length)).toBe(0);
  });
});
