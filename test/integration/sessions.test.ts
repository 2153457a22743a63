/** Compute sessions end to end on real sandboxes: create, execute, batch, destroy, isolation, bad input. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelCgroup } from '../../server/agents/local/cgroups';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { openEventStream } from '../helpers/sse';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
});
afterAll(() => t?.stop());

let counter = 0;
const uniqueName = (prefix = 'sess') => `${prefix}-${++counter}-${Date.now().toString(36)}`;

async function create(user: TestUser, body: Record<string, unknown>) {
  return user.client.request('POST', '/session', { body: { name: uniqueName(), image: 'python', group: 'default', ...body } });
}

async function run(user: TestUser, name: string, code: string, mode = 'query', options?: object) {
  let result = (await user.client.call('POST', `/session/${name}`, { body: { mode, runId: null, code, options } })).result;
  const console: [string, string][] = [...result.console];
  while (result.status === 'continued') {
    result = (await user.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: result.runId, code: '' } })).result;
    console.push(...result.console);
  }
  return { ...result, console };
}

describe('POST /session', () => {
  it('starts a python session and answers RUNNING with its service ports', async () => {
    const name = uniqueName();
    const res = await create(alice, { name });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ sessionName: name, status: 'RUNNING', created: true });
    expect(body.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Array.isArray(body.servicePorts)).toBe(true);
    const info = await alice.client.call('GET', `/session/${name}`);
    expect(info).toMatchObject({ status: 'RUNNING', image: 'berth/python:3.11', domainName: 'default', userId: alice.uuid });
    expect(info.occupiedSlots).toEqual({ cpu: '0.5', mem: String(256 * 1024 * 1024) });
    expect(info.resourceOpts).toEqual({ shmem: String(64 * 1024 * 1024) });
    await alice.client.call('DELETE', `/session/${name}`);
  });

  it('reuses a live session of the same name and image', async () => {
    const name = uniqueName();
    const first = (await create(alice, { name })).json();
    const again = (await create(alice, { name })).json();
    expect(again).toMatchObject({ sessionId: first.sessionId, created: false, status: 'RUNNING' });
    const other = await create(alice, { name, image: 'shell' });
    expect(other.status).toBe(400);
    expect(other.json()).toMatchObject({ type: 'https://errors.berth.dev/session-already-exists', data: { existingSessionId: first.sessionId } });
    const refused = await create(alice, { name, reuseIfExists: false });
    expect(refused.status).toBe(400);
    await alice.client.call('DELETE', `/session/${name}`);
  });

  it('keeps resource_opts with shmem in bytes as a decimal string', async () => {
    const res = (await create(alice, { image: 'shell', enqueueOnly: true, config: { resourceOpts: { shmem: '128m' } } })).json();
    expect((await alice.client.call('GET', `/session/${res.sessionId}`)).resourceOpts).toEqual({ shmem: String(128 * 1024 * 1024) });
    await waitFor(async () => (await alice.client.call('GET', `/session/${res.sessionId}`)).status === 'RUNNING');
    await alice.client.call('DELETE', `/session/${res.sessionId}`);
  });

  it('enqueueOnly answers PENDING at once with no service ports', async () => {
    const res = (await create(alice, { enqueueOnly: true })).json();
    expect(res).toMatchObject({ status: 'PENDING', servicePorts: [], created: true });
    await waitFor(async () => (await alice.client.call('GET', `/session/${res.sessionName}`)).status === 'RUNNING');
    await alice.client.call('DELETE', `/session/${res.sessionName}`);
  });

  it.each([
    ['an unknown image', { image: 'no-such-image' }],
    ['a bad name', { name: 'a' }],
    ['a name with spaces', { name: 'has spaces here' }],
    ['a negative cluster size', { cluster_size: -1 }],
    ['a batch session without a command', { type: 'batch' }],
    ['a negative cpu', { config: { resources: { cpu: -1 } } }],
    ['memory below the image minimum', { config: { resources: { mem: '1m' } } }],
    ['an unknown slot', { config: { resources: { 'warp.drive': 1 } } }],
    ['an unknown project', { group: 'no-such-project' }],
    ['an unknown type', { type: 'party' }],
    ['starts_at on an interactive session', { starts_at: '30m' }],
    ['an unknown folder to mount', { config: { mounts: ['nope'] } }],
    ['a shmem that is no size', { config: { resource_opts: { shmem: 'lots' } } }],
  ])('refuses %s with 400 problem+json and allocates nothing', async (_, body) => {
    const before = await t.app.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const res = await create(alice, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    const after = await t.app.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

describe('code execution', () => {
  const name = uniqueName('exec');
  beforeAll(async () => {
    expect((await create(alice, { name })).json().status).toBe('RUNNING');
  });
  afterAll(() => alice.client.request('DELETE', `/session/${name}`));

  it('keeps interpreter state between runs', async () => {
    await run(alice, name, 'counter = 41');
    const result = await run(alice, name, 'counter += 1\nprint(counter)');
    expect(result).toMatchObject({ status: 'finished', exitCode: 0, console: [['stdout', '42\n']] });
  });

  it('gives user code the usual site packages and builtins (the runner loads site after it starts)', async () => {
    // ipykernel is a Debian package in dist-packages; exit/quit come from site.
    const result = await run(alice, name, 'import ipykernel, sys\nprint(any(p.endswith("dist-packages") for p in sys.path), callable(exit))');
    expect(result).toMatchObject({ status: 'finished', console: [['stdout', 'True True\n']] });
  });

  it('reports user exceptions as stderr with status finished', async () => {
    const result = await run(alice, name, '1/0');
    expect(result.status).toBe('finished');
    expect(result.console[0][0]).toBe('stderr');
    expect(result.console[0][1]).toContain('ZeroDivisionError');
  });

  it('asks for input and continues with it', async () => {
    const first = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: 'ask1', code: 'x = input("name? ")\nprint("hi " + x)' } })).result;
    expect(first).toMatchObject({ runId: 'ask1', status: 'waiting-input', options: { is_password: false } });
    expect(first.console).toEqual([['stdout', 'name? ']]);
    // A continue while it still waits says waiting-input again (not continued).
    const again = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: 'ask1', code: '' } })).result;
    expect(again).toMatchObject({ runId: 'ask1', status: 'waiting-input', options: { is_password: false }, exitCode: null, console: [] });
    const second = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'input', runId: 'ask1', code: 'berth' } })).result;
    expect(second).toMatchObject({ status: 'finished', console: [['stdout', 'hi berth\n']] });
  });

  it('answers continued for a long run and delivers the rest on continue', async () => {
    const first = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code: 'import time\nprint("a", flush=True)\ntime.sleep(2.5)\nprint("b")' } })).result;
    expect(first.status).toBe('continued');
    expect(first.console).toEqual([['stdout', 'a\n']]);
    const rest = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: first.runId, code: '' } })).result;
    expect(rest).toMatchObject({ status: 'finished', console: [['stdout', 'b\n']] });
  });

  it('delivers a flood of output completely and in order across continues (the buffer holds 4096 records, then the run waits)', async () => {
    const result = await run(alice, name, 'for i in range(12000):\n    print(i, flush=True)');
    expect(result.status).toBe('finished');
    const printed = result.console.map((c: [string, string]) => c[1]).join('');
    expect(printed).toBe(Array.from({ length: 12000 }, (_, i) => `${i}\n`).join(''));
  });

  it('runs batch steps and reports build-finished then finished', async () => {
    const result = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'batch', runId: null, code: '', options: { build: 'echo built > out.txt', exec: 'cat out.txt; exit 3' } } })).result;
    expect(result).toMatchObject({ status: 'build-finished', exitCode: 0 });
    const next = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: result.runId, code: '' } })).result;
    expect(next).toMatchObject({ status: 'finished', exitCode: 3, console: [['stdout', 'built\n']] });
  });

  it('completes names from the interpreter', async () => {
    await run(alice, name, 'berth_value = 1');
    const res = await alice.client.call('POST', `/session/${name}/complete`, { body: { code: 'berth_v' } });
    expect(res.result.completions).toContain('berth_value');
  });

  it('a finished run whose result nobody collects does not hold up the next run', async () => {
    const left = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'batch', runId: 'left-behind', code: '', options: { build: 'exit 2', exec: 'echo never' } } })).result;
    expect(left).toMatchObject({ status: 'build-finished', exitCode: 2 });
    // The run goes on to finish (127: the build failed) but its client never calls continue.
    const next = await run(alice, name, 'print("next")');
    expect(next).toMatchObject({ status: 'finished', exitCode: 0, console: [['stdout', 'next\n']] });
  });

  it('refuses an unknown mode and a continue without runId with 400', async () => {
    expect((await alice.client.request('POST', `/session/${name}`, { body: { mode: 'dance', runId: null, code: '' } })).status).toBe(400);
    expect((await alice.client.request('POST', `/session/${name}`, { body: { mode: 'continue', runId: null, code: '' } })).status).toBe(400);
    expect((await alice.client.request('POST', `/session/${name}`, { body: { mode: 'continue', runId: 'nope', code: '' } })).status).toBe(400);
  });
});

describe('sandbox isolation', () => {
  it('cannot see other sessions\' files or processes, nor write outside its scratch', async () => {
    const a = uniqueName('iso');
    const b = uniqueName('iso');
    await create(alice, { name: a });
    await create(bob, { name: b });
    await run(alice, a, 'open("/home/work/secret.txt", "w").write("alice-secret")');
    const probe = await run(bob, b, [
      'import os, glob',
      'print(os.getpid(), len([p for p in os.listdir("/proc") if p.isdigit()]))',
      'print(glob.glob("/home/work/secret.txt"), os.getuid())',
      'try:\n    open("/usr/evil", "w")\nexcept OSError as e:\n    print("usr", type(e).__name__)',
      'try:\n    open("/etc/evil", "w")\nexcept OSError as e:\n    print("etc", type(e).__name__)',
    ].join('\n'));
    const out = probe.console.map((c: [string, string]) => c[1]).join('');
    const [pidLine, globLine] = out.split('\n');
    expect(Number(pidLine.split(' ')[1])).toBeLessThan(10); // its own PID namespace
    expect(globLine).toMatch(/^\[\] [1-9]\d*$/); // nothing of alice's, not root
    expect(out).toContain('usr ');
    expect(out).toContain('etc ');
    await alice.client.call('DELETE', `/session/${a}`);
    await bob.client.call('DELETE', `/session/${b}`);
  });

  it('ends, when destroyed, a process that left the runner\'s session and process group', async () => {
    const name = uniqueName('detach');
    await create(alice, { name });
    const marker = `${31000 + (process.pid % 1000)}.${counter}`; // sleep's argument names the process on the host
    await run(alice, name, `import subprocess\nsubprocess.Popen(["setsid", "sleep", "${marker}"], start_new_session=True)`);
    const sleeping = () => readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && readCmdline(pid) === `sleep\0${marker}\0`);
    await waitFor(async () => sleeping().length === 1);
    await alice.client.call('DELETE', `/session/${name}`);
    await waitFor(async () => sleeping().length === 0, 10_000);
  });

  it('is killed when it exceeds its memory limit, and the manager records why and removes its cgroups', async () => {
    const name = uniqueName('oom');
    const { sessionId } = (await create(alice, { name, config: { resources: { mem: '256m' } } })).json();
    const kernel = await t.app.db.selectFrom('kernels').select('id').where('session_id', '=', sessionId).executeTakeFirstOrThrow();
    const groups = new KernelCgroup(kernel.id).directories();
    expect(groups.every((dir) => existsSync(dir))).toBe(true);
    // Polled with `continue` as a client does: on a loaded machine the kill may come after the first answer.
    const res = await run(alice, name, 'blob = bytearray(900 * 1024 * 1024)\nprint("survived")');
    expect(res.status).toBe('finished');
    expect(res.console).not.toContainEqual(['stdout', 'survived\n']);
    await waitFor(async () => (await alice.client.call('GET', `/session/${name}`)).status === 'TERMINATED');
    const info = await alice.client.call('GET', `/session/${name}`);
    expect(info.statusInfo).toBe('self-terminated');
    expect(info.statusData.error).toMatchObject({ oomKilled: true });
    // Its tasks leave the groups a moment after the kill; the groups must not stay behind empty.
    await waitFor(async () => groups.every((dir) => !existsSync(dir)), 10_000);
  });
});

describe('a kernel that cannot start', () => {
  it('makes the create answer ERROR; the session stays ERROR (failed-to-start) and needs forced=true to destroy', async () => {
    const name = uniqueName('broken');
    // The runner's interpreter cannot start without its standard library.
    const res = (await create(alice, { name, config: { environ: { PYTHONHOME: '/nonexistent' } } })).json();
    expect(res.status).toBe('ERROR');
    // The dead sandbox's exit must not turn the failure into a self-termination.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await alice.client.call('GET', `/session/${name}`)).toMatchObject({ status: 'ERROR', statusInfo: 'failed-to-start' });
    const refused = await alice.client.request('DELETE', `/session/${name}`);
    expect(refused.status).toBe(403);
    expect(refused.json().type).toBe('https://errors.berth.dev/generic-forbidden');
    await alice.client.call('DELETE', `/session/${name}`, { query: { forced: true } });
    expect(await alice.client.call('GET', `/session/${res.sessionId}`)).toMatchObject({ status: 'TERMINATED', statusInfo: 'force-terminated' });
  });
});

describe('ownership', () => {
  it('another user gets 404 for get, execute and destroy; an admin of the domain can see it', async () => {
    const name = uniqueName('own');
    const created = (await create(alice, { name })).json();
    for (const [method, path, body] of [
      ['GET', `/session/${name}`, undefined],
      ['GET', `/session/${created.sessionId}`, undefined],
      ['POST', `/session/${created.sessionId}`, { mode: 'query', runId: null, code: 'print(1)' }],
      ['DELETE', `/session/${created.sessionId}`, undefined],
    ] as const) {
      const res = await bob.client.request(method, path, body ? { body } : {});
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await t.admin.request('GET', `/session/${created.sessionId}`)).status).toBe(200);
    expect((await bob.client.request('GET', `/session/${name}`, { query: { owner_access_key: alice.accessKey } })).status).toBe(403);
    expect((await t.admin.request('GET', `/session/${name}`, { query: { owner_access_key: alice.accessKey } })).status).toBe(200);
    const destroyed = await alice.client.call('DELETE', `/session/${name}`);
    expect(destroyed).toHaveProperty('stats');
    expect((await alice.client.call('GET', `/session/${created.sessionId}`)).status).toBe('TERMINATED');
  });
});

describe('batch sessions', () => {
  it('succeed on exit code 0 and fail otherwise, with the log kept', async () => {
    const ok = (await create(alice, { type: 'batch', image: 'shell', startupCommand: 'echo batch-ok; exit 0' })).json();
    const bad = (await create(alice, { type: 'batch', image: 'shell', startupCommand: 'echo batch-bad >&2; exit 7' })).json();
    await waitFor(async () => (await alice.client.call('GET', `/session/${ok.sessionId}`)).status === 'TERMINATED');
    await waitFor(async () => (await alice.client.call('GET', `/session/${bad.sessionId}`)).status === 'TERMINATED');
    expect(await alice.client.call('GET', `/session/${ok.sessionId}`)).toMatchObject({ result: 'success', statusInfo: 'task-done' });
    expect(await alice.client.call('GET', `/session/${bad.sessionId}`)).toMatchObject({ result: 'failure', statusInfo: 'task-failed' });
    const logs = await alice.client.call('GET', `/session/${ok.sessionId}/logs`);
    expect(logs.result.logs).toContain('batch-ok');
  });
});

/** A process's command line, or '' once it is gone. */
function readCmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

describe('GET /events/session', () => {
  it('streams the lifecycle of a session in order, as the contract names it', async () => {
    const name = uniqueName('ev');
    const stream = await openEventStream(t.url, alice, '/events/session', { name });
    expect(stream.status).toBe(200);
    expect(stream.contentType).toContain('text/event-stream');
    await create(alice, { name });
    const started = await stream.next((e) => e.event === 'session_started');
    expect(started.data).toMatchObject({ sessionName: name, ownerAccessKey: alice.accessKey, reason: '', exitCode: null });
    await alice.client.call('DELETE', `/session/${name}`);
    await stream.next((e) => e.event === 'session_terminated');
    stream.close();
    const sessionEvents = stream.events.filter((e) => !e.data.kernelId).map((e) => e.event);
    expect(sessionEvents).toEqual(['session_enqueued', 'session_scheduled', 'session_preparing', 'session_started', 'session_terminating', 'session_terminated']);
    const kernelEvents = stream.events.filter((e) => e.data.kernelId).map((e) => e.event);
    expect(kernelEvents).toEqual(['kernel_preparing', 'kernel_creating', 'kernel_started', 'kernel_terminating', 'kernel_terminated']);
    expect(stream.events.find((e) => e.event === 'kernel_started')!.data).toMatchObject({ clusterRole: 'main', clusterIdx: 1 });
  });

  it('does not show one user the sessions of another', async () => {
    const stream = await openEventStream(t.url, bob, '/events/session');
    const name = uniqueName('hidden');
    await create(alice, { name });
    await alice.client.call('DELETE', `/session/${name}`);
    const mine = uniqueName('mine');
    await create(bob, { name: mine });
    await stream.next((e) => e.event === 'session_started');
    stream.close();
    expect(stream.events.every((e) => e.data.sessionName !== name)).toBe(true);
    await bob.client.call('DELETE', `/session/${mine}`);
  });

  it('a destroyed queued session announces kernel_cancelled and session_cancelled', async () => {
    const name = uniqueName('cancel');
    const stream = await openEventStream(t.url, alice, '/events/session', { name });
    const queued = (await create(alice, { name, image: 'shell', type: 'batch', startupCommand: 'true', starts_at: '1h', enqueueOnly: true })).json();
    await alice.client.call('DELETE', `/session/${queued.sessionId}`);
    await stream.next((e) => e.event === 'session_cancelled');
    const kernelCancelled = await stream.next((e) => e.event === 'kernel_cancelled');
    stream.close();
    expect(kernelCancelled.data).toMatchObject({ sessionId: queued.sessionId, reason: 'user-requested', clusterRole: 'main', clusterIdx: 1, kernelId: expect.any(String) });
  });

  it('a batch session\'s exit code is on kernel_terminating, kernel_terminated and session_failure, each sent once', async () => {
    const name = uniqueName('exitcode');
    const stream = await openEventStream(t.url, alice, '/events/session', { name });
    await create(alice, { name, image: 'shell', type: 'batch', startupCommand: 'exit 7' });
    await stream.next((e) => e.event === 'session_failure');
    stream.close();
    const of = (event: string) => stream.events.filter((e) => e.event === event);
    expect(of('kernel_terminating')).toHaveLength(1);
    expect(of('kernel_terminating')[0].data.exitCode).toBe(7);
    expect(of('kernel_terminated')[0].data.exitCode).toBe(7);
    expect(of('session_failure')[0].data).toMatchObject({ exitCode: 7, reason: 'task-failed' });
  });

  it('refuses another user\'s ownerAccessKey with 403 and an unknown project with 404', async () => {
    expect((await bob.client.request('GET', '/events/session', { query: { ownerAccessKey: alice.accessKey } })).status).toBe(403);
    expect((await bob.client.request('GET', '/events/session', { query: { group: 'no-such-project' } })).status).toBe(404);
  });
});

describe('scheduling and limits', () => {
  it('never allocates past a keypair limit under 200 concurrent creates', async () => {
    await t.app.db.insertInto('keypair_resource_policies').values({ name: 'tiny', total_resource_slots: JSON.stringify({ cpu: '1' }), allowed_vfolder_hosts: '{}', max_concurrent_sessions: 100 }).execute();
    const carol = await t.createUser();
    await t.app.db.updateTable('keypairs').set({ resource_policy: 'tiny' }).where('access_key', '=', carol.accessKey).execute();
    t.app.keypairs.invalidate();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => carol.client.request('POST', '/session', { body: { name: `burst-${i}`, image: 'shell', group: 'default', enqueueOnly: true } })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await waitFor(async () => {
      const running = await t.app.db.selectFrom('sessions').select('id').where('access_key', '=', carol.accessKey).where('status', '=', 'RUNNING').execute();
      return running.length === 2;
    });
    await new Promise((r) => setTimeout(r, 500));
    const holding = await t.app.db.selectFrom('sessions').select(['occupying_slots']).where('access_key', '=', carol.accessKey).where('status', 'not in', ['PENDING', 'TERMINATED', 'CANCELLED']).execute();
    const cpu = holding.reduce((sum, s) => sum + Number(s.occupying_slots.cpu ?? 0), 0);
    expect(holding.length).toBe(2);
    expect(cpu).toBeLessThanOrEqual(1);
    const usage = await carol.client.call('POST', '/resource/check-presets', { body: { group: 'default' } });
    expect(usage.keypair_using.cpu).toBe('1');
    expect(usage.keypair_remaining.cpu).toBe('0');
    // Freeing one slot lets exactly the next queued session in.
    const first = await t.app.db.selectFrom('sessions').select('id').where('access_key', '=', carol.accessKey).where('status', '=', 'RUNNING').executeTakeFirstOrThrow();
    await carol.client.call('DELETE', `/session/${first.id}`);
    await waitFor(async () => (await t.app.db.selectFrom('sessions').select('id').where('access_key', '=', carol.accessKey).where('status', '=', 'RUNNING').execute()).length === 2);
    // force_kill ends every session before freezing.
    await t.admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: true } });
    const left = await t.app.db.selectFrom('sessions').select('status').where('access_key', '=', carol.accessKey).where('status', 'not in', ['TERMINATED', 'CANCELLED']).execute();
    expect(left).toEqual([]);
    expect((await carol.client.request('POST', '/session', { body: { name: 'frozen-out', image: 'shell' } })).status).toBe(503);
    await t.admin.call('PUT', '/manager/status', { body: { status: 'running', force_kill: false } });
  });

  it('a session with an unfinished dependency waits, then runs after it succeeds', async () => {
    const parent = (await create(alice, { type: 'batch', image: 'shell', startupCommand: 'sleep 1; exit 0' })).json();
    const child = (await create(alice, { image: 'shell', dependencies: [parent.sessionId], enqueueOnly: true })).json();
    expect((await alice.client.call('GET', `/session/${child.sessionId}`)).status).toBe('PENDING');
    await waitFor(async () => (await alice.client.call('GET', `/session/${child.sessionId}`)).status === 'RUNNING');
    const graph = await alice.client.call('GET', `/session/${child.sessionId}/dependency-graph`);
    expect(graph).toMatchObject({ session_id: child.sessionId, depends_on: [{ session_id: parent.sessionId, status: 'TERMINATED' }] });
    await alice.client.call('DELETE', `/session/${child.sessionId}`);
  });

  it('cluster sessions start one kernel per node, each knowing the others by hostname', async () => {
    const name = uniqueName('cluster');
    const res = (await create(alice, { name, image: 'python', cluster_size: 2 })).json();
    expect(res.status).toBe('RUNNING');
    const out = await run(alice, name, 'import os, socket\nprint(os.environ["BERTH_CLUSTER_HOSTS"], socket.gethostname(), socket.gethostbyname("sub1"))');
    expect(out.console).toEqual([['stdout', 'main1,sub1 main1 127.0.0.1\n']]);
    const kernels = await t.app.db.selectFrom('kernels').select(['cluster_role', 'cluster_hostname', 'status']).where('session_id', '=', res.sessionId).orderBy('cluster_role').orderBy('cluster_idx').execute();
    expect(kernels).toEqual([
      { cluster_role: 'main', cluster_hostname: 'main1', status: 'RUNNING' },
      { cluster_role: 'sub', cluster_hostname: 'sub1', status: 'RUNNING' },
    ]);
    await alice.client.call('DELETE', `/session/${name}`);
  });
});
