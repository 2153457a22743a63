/**
 * Sessions on a real Slurm cluster (the test command starts one: slurmctld and two slurmd nodes, each in its own
 * network namespace with its own address): nodes as agents, a session as a Slurm job placed by Slurm, execution,
 * terminal, apps through the app proxy, files and folders on the shared file system, batch exit codes, cluster
 * sessions across nodes, the kernel channel's authentication, destroy = scancel, and a lost node.
 */
import net from 'node:net';
import tls from 'node:tls';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { expectTerminalRuns } from '../helpers/ws';
import { slurmCluster } from './cluster';
import { get, waitFor } from '../helpers/poll';

const cluster = slurmCluster();
let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let counter = 0;
const unique = (prefix = 'slurm') => `${prefix}-${++counter}-${Date.now().toString(36)}`;

beforeAll(async () => {
  t = await startTestBerth({ slurm: { conf: cluster.conf, partition: null, scalingGroup: 'slurm', account: null } }, { roles: ['manager', 'apps'] });
  alice = await t.createUser();
  bob = await t.createUser();
}, 120_000);
afterAll(() => t?.stop());

function squeue(jobId: string): string {
  return execFileSync('squeue', ['--noheader', '-j', jobId, '-o', '%T'], { env: { ...process.env, SLURM_CONF: cluster.conf }, encoding: 'utf8' }).trim();
}

async function create(user: TestUser, body: Record<string, unknown>) {
  const config = { scaling_group: 'slurm', ...((body.config as object) ?? {}) };
  return user.client.call('POST', '/session', { body: { name: unique(), image: 'python', group: 'default', ...body, config } });
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
  return { ...result, console, stdout: console.filter(([k]) => k === 'stdout').map(([, v]) => v).join('') };
}

async function mainKernel(sessionId: string) {
  return t.app.db.selectFrom('kernels').selectAll().where('session_id', '=', sessionId).where('cluster_role', '=', 'main').executeTakeFirstOrThrow();
}

describe('Slurm nodes as agents', () => {
  it('lists every node of the partition ALIVE, with its address and the CPUs and memory Slurm declares', async () => {
    const agents = await t.app.db.selectFrom('agents').selectAll().where('backend', '=', 'slurm').orderBy('id').execute();
    expect(agents.map((a) => a.id)).toEqual(cluster.nodes.map((n) => `slurm-${n.name}`));
    for (const [i, agent] of agents.entries()) {
      expect(agent).toMatchObject({ status: 'ALIVE', scaling_group: 'slurm', addr: cluster.nodes[i].addr });
      expect(Number(agent.available_slots.cpu)).toBeGreaterThan(0);
      expect(Number(agent.available_slots.mem)).toBeGreaterThan(0);
    }
    const { data } = await t.admin.call('POST', '/admin/gql', { body: { query: '{ agent_list(limit: 10, offset: 0, filter: "scaling_group == \\"slurm\\"") { total_count items { id status } } }' } });
    expect(data.agent_list.total_count).toBe(cluster.nodes.length);
  });

  it('offers the created slurm scaling group to users', async () => {
    const groups = await alice.client.call('GET', '/scaling-groups?group=default');
    expect(groups.scaling_groups.map((g: { name: string }) => g.name)).toContain('slurm');
  });
});

describe('an interactive session on Slurm', () => {
  let name: string;
  let sessionId: string;
  let jobId: string;

  beforeAll(async () => {
    name = unique('interactive');
    const created = await create(alice, { name });
    expect(created.status).toBe('RUNNING');
    sessionId = created.sessionId;
    const kernel = await mainKernel(sessionId);
    jobId = kernel.container_id!;
  }, 120_000);

  it('is one Slurm job, running on a node Slurm chose, reached over a TLS channel', async () => {
    expect(squeue(jobId)).toBe('RUNNING');
    const kernel = await mainKernel(sessionId);
    expect(kernel.agent_id).toMatch(/^slurm-node\d+$/);
    const node = cluster.nodes.find((n) => `slurm-${n.name}` === kernel.agent_id)!;
    expect(kernel.channel).toMatchObject({ kind: 'tls', host: node.addr });
    const info = await alice.client.call('GET', `/session/${name}`);
    expect(info.statusHistory).toHaveProperty('SCHEDULED');
    expect(info.statusHistory).toHaveProperty('PREPARING');
  });

  it('keeps interpreter state between runs and runs in the sandbox as the unprivileged user', async () => {
    await run(alice, name, 'x = 41');
    expect((await run(alice, name, 'print(x + 1)')).stdout).toBe('42\n');
    const who = await run(alice, name, 'id -un; hostname; pwd', 'batch');
    expect(who.stdout.split('\n').slice(0, 3)).toEqual(['work', 'main1', '/home/work']);
  });

  it('gives a real terminal over the pty stream', async () => {
    await expectTerminalRuns(t.url, alice, name);
  });

  it('serves its files from the shared file system', async () => {
    await run(alice, name, 'echo from-the-node > note.txt', 'batch');
    const listing = await alice.client.call('GET', `/session/${name}/files?path=.`);
    expect(JSON.stringify(listing)).toContain('note.txt');
    const logs = await alice.client.call('GET', `/session/${name}/logs`);
    expect(typeof logs.result.logs).toBe('string');
  });

  it('publishes its apps through the app proxy, forwarding to the node', async () => {
    const started = await alice.client.call('POST', `/session/${name}/start-service`, { body: { app: 'ttyd' } });
    const route = await t.app.db.selectFrom('app_routes').selectAll().where('session_id', '=', sessionId).where('app', '=', 'ttyd').executeTakeFirstOrThrow();
    expect(cluster.nodes.map((n) => n.addr)).toContain(route.host);
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=ttyd`)).body);
    const auth = await get(added.url);
    const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
    const page = await get(auth.headers.location!, { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('refuses a channel peer without the kernel\'s secret, and a manager refuses a kernel without its certificate', async () => {
    const kernel = await mainKernel(sessionId);
    const channel = kernel.channel as { host: string; port: number; secret: string; fingerprint256: string };
    // A wrong secret: the launcher closes the connection without a word from the runner.
    const answer = await new Promise<string>((resolve) => {
      const socket = tls.connect({ host: channel.host, port: channel.port, rejectUnauthorized: false }, () => {
        socket.write(JSON.stringify({ auth: 'not-the-secret' }) + '\n' + JSON.stringify({ op: 'ping' }) + '\n');
      });
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    expect(answer).toBe('');
    // Plain TCP is not TLS: nothing comes back either.
    const plain = await new Promise<string>((resolve) => {
      const socket = net.connect(channel.port, channel.host, () => socket.write('{"op":"ping"}\n'));
      let data = '';
      socket.setTimeout(3_000, () => socket.destroy());
      socket.on('data', (c) => (data += c));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    expect(plain).not.toContain('pong');
    // The right secret answers.
    const { RunnerAgent } = await import('../../server/agents/channel/runner-agent');
    expect(await RunnerAgent.answers({ kind: 'tls', ...channel })).toBe(true);
    expect(await RunnerAgent.answers({ kind: 'tls', ...channel, fingerprint256: 'AA:BB' })).toBe(false);
  });

  it('is not another user\'s to touch', async () => {
    expect((await bob.client.request('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code: '1' } })).status).toBe(404);
  });

  it('ends with scancel on destroy', async () => {
    await alice.client.call('DELETE', `/session/${name}`);
    await waitFor(async () => !['RUNNING', 'PENDING', 'CONFIGURING', 'COMPLETING'].includes(squeue(jobId)));
    expect((await alice.client.call('GET', `/session/${name}`)).status).toBe('TERMINATED');
  });
});

describe('batch sessions on Slurm', () => {
  it('succeed and fail by their command\'s exit code', async () => {
    const ok = await create(alice, { type: 'batch', image: 'shell', startupCommand: 'echo done > out.txt; exit 0', enqueueOnly: true });
    const bad = await create(alice, { type: 'batch', image: 'shell', startupCommand: 'exit 3', enqueueOnly: true });
    const okInfo = await waitFor(async () => {
      const info = await alice.client.call('GET', `/session/${ok.sessionId}`);
      return info.status === 'TERMINATED' && info;
    }, 60_000);
    expect(okInfo.result).toBe('success');
    const badInfo = await waitFor(async () => {
      const info = await alice.client.call('GET', `/session/${bad.sessionId}`);
      return info.status === 'TERMINATED' && info;
    }, 60_000);
    expect(badInfo.result).toBe('failure');
  });
});

describe('a cluster session across nodes', () => {
  it('places each kernel on its own node, and the kernels reach each other by hostname', async () => {
    const created = await create(alice, { clusterSize: 2, clusterMode: 'multi-node', image: 'shell' });
    expect(created.status).toBe('RUNNING');
    const kernels = await t.app.db.selectFrom('kernels').selectAll().where('session_id', '=', created.sessionId).orderBy('cluster_idx').execute();
    expect(new Set(kernels.map((k) => k.agent_id)).size).toBe(2);
    expect(new Set(kernels.map((k) => k.container_id)).size).toBe(1);
    const sub = kernels.find((k) => k.cluster_role !== 'main')!;
    const subNode = cluster.nodes.find((n) => `slurm-${n.name}` === sub.agent_id)!;
    const hosts = await run(alice, created.sessionId, `getent hosts ${sub.cluster_hostname}`, 'batch');
    expect(hosts.stdout).toContain(subNode.addr);
    await alice.client.call('DELETE', `/session/${created.sessionId}`);
  });
});

describe('folders on the shared file system', () => {
  it('mounts a folder into a session on a node', async () => {
    const folder = unique('data');
    await alice.client.call('POST', '/folders', { body: { name: folder } });
    const up = await alice.client.call('POST', `/folders/${folder}/request-upload`, { body: { path: 'hello.txt', size: 6 } });
    const res = await fetch(`${up.url}?token=${up.token}`, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: 'hello\n' });
    expect(res.status).toBe(204);
    const created = await create(alice, { image: 'shell', config: { mounts: [folder] } });
    expect((await run(alice, created.sessionId, `cat /home/work/${folder}/hello.txt`, 'batch')).stdout).toBe('hello\n');
    await alice.client.call('DELETE', `/session/${created.sessionId}`);
  });
});

describe('a lost node', () => {
  it('ends its session in ERROR with the reason, and the node becomes LOST', async () => {
    const created = await create(alice, { image: 'shell' });
    const kernel = await mainKernel(created.sessionId);
    const node = kernel.agent_id!.replace(/^slurm-/, '');
    await cluster.killNode(node);
    try {
      const info = await waitFor(async () => {
        const s = await alice.client.call('GET', `/session/${created.sessionId}`);
        return s.status === 'ERROR' && s;
      }, 90_000);
      expect(info.statusInfo).toBe('node-lost');
      await waitFor(async () => (await t.app.db.selectFrom('agents').select('status').where('id', '=', kernel.agent_id!).executeTakeFirst())?.status === 'LOST', 30_000);
    } finally {
      await cluster.startNode(node);
    }
    await alice.client.call('DELETE', `/session/${created.sessionId}?forced=true`);
  }, 150_000);
});
