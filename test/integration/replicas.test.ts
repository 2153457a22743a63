/**
 * Several Berth replicas on one PostgreSQL (issue 15, docs/architecture.md "Scale-out"): three real processes
 * (test/helpers/process.ts) share one database and one data directory: A and B with every listener role but the
 * dashboard (which needs a build), C with `agent,scheduler` only. Any replica serves any request, events cross
 * replicas once, the singletons have one leader that another replaces after SIGKILL, the rate limit and the
 * caches are shared. PostgreSQL only: on PGlite there is one process by construction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { BerthClient } from '../../server/client/client';
import { openDatabase, type OpenedDatabase } from '../../server/db';
import { createUser } from '../../server/accounts/create-user';
import { createTestDatabase } from '../helpers/berth';
import { freePort, startManagerProcess, stopProcess, type ManagerProcess } from '../helpers/process';
import { openEventStream } from '../helpers/sse';
import { b64, connectStream, unb64 } from '../helpers/ws';

const onPostgres = process.env.BERTH_TEST_DB === 'postgres';
const ADMIN = { accessKey: 'AKREPLICAS0000000001', secretKey: 'replicasSecretKey000000000000000000000000' };

interface Replica {
  name: string;
  proc: ManagerProcess;
  url: string;
  admin: BerthClient;
}

let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let opened: OpenedDatabase;
const replicas: Replica[] = [];
let counter = 0;

async function startReplica(name: string, roles: string): Promise<Replica> {
  const [port, appPort] = [await freePort(), await freePort()];
  const proc = await startManagerProcess({
    BERTH_DATA_DIR: dataDir,
    BERTH_DATABASE_URL: database.url,
    BERTH_ROLES: roles,
    BERTH_MANAGER_PORT: String(port),
    BERTH_APP_PORT: String(appPort),
    BERTH_ADMIN_ACCESS_KEY: ADMIN.accessKey,
    BERTH_ADMIN_SECRET_KEY: ADMIN.secretKey,
    // Lease changes are logged at info: a failure shows who led when.
    BERTH_LOG_LEVEL: 'info',
  });
  const url = `http://127.0.0.1:${port}`;
  return { name, proc, url, admin: new BerthClient({ endpoint: url, ...ADMIN }) };
}

const alive = () => replicas.filter((r) => r.proc.child.exitCode === null && r.proc.child.signalCode === null);
const db = () => opened.db;

/** Polls a condition on the database or an API (no sleeps of a fixed length, no timing in assertions). */
async function waitFor<T>(what: string, probe: () => Promise<T | false | null | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; replicas said:\n${replicas.map((r) => `--- ${r.name}\n${r.proc.output().slice(-3000)}`).join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Advisory locks are the server's, not one database's: other test files' managers hold theirs on the same server. */
const THIS_DATABASE = sql`(select oid from pg_database where datname = current_database())`;

/** The OS pid of the replica holding a singleton's lease (cluster/leases: advisory lock class 'bert'). */
async function leaderPid(singleton: string): Promise<number | null> {
  const { rows } = await sql<{ app: string }>`
    select a.application_name as app from pg_locks l join pg_stat_activity a on a.pid = l.pid
    where l.locktype = 'advisory' and l.granted and l.database = ${THIS_DATABASE} and l.classid = ${0x62657274}::bigint::oid
      and l.objid = (hashtext(${singleton})::bigint & 4294967295)::oid`.execute(db());
  const match = rows[0]?.app.match(/pid=(\d+)/);
  return match ? Number(match[1]) : null;
}

/** Kernel ids with a live process naming their directory in this data directory (found apart from the code under test). */
function sandboxKernels(): Set<string> {
  const prefix = path.join(dataDir, 'kernels') + '/';
  const found = new Set<string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const arg = cmdline.split('\0').find((a) => a.startsWith(prefix));
    if (arg) found.add(arg.slice(prefix.length).split('/')[0]);
  }
  return found;
}

async function newUser(options: { rateLimit?: number; policy?: string } = {}) {
  counter += 1;
  const email = `replica-user${counter}@example.com`;
  const created = await createUser(db(), {
    email,
    username: `replica-user${counter}`,
    password: `password-${counter}-xyz`,
    domainName: 'default',
    role: 'user',
    keypair: { rateLimit: options.rateLimit ?? 100_000, resourcePolicy: options.policy },
  });
  return { accessKey: created.accessKey, secretKey: created.secretKey, client: (r: Replica) => new BerthClient({ endpoint: r.url, accessKey: created.accessKey, secretKey: created.secretKey }) };
}

describe.skipIf(!onPostgres)('three replicas on one PostgreSQL', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'berth-replicas-'));
    database = await createTestDatabase();
    // The first replica bootstraps the database; the others join it.
    replicas.push(await startReplica('A', 'manager,apps,agent,scheduler'));
    replicas.push(...(await Promise.all([startReplica('B', 'manager,apps,agent,scheduler'), startReplica('C', 'agent,scheduler')])));
    opened = await openDatabase({ url: database.url });
  }, 120_000);

  afterAll(async () => {
    const [survivor] = alive();
    await survivor?.admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: true } }).catch(() => undefined);
    for (const r of replicas) r.admin.close();
    await Promise.all(replicas.map((r) => stopProcess(r.proc.child)));
    await opened?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('runs each singleton on exactly one replica', async () => {
    for (const singleton of ['scheduler', 'service-scaler', 'idle-culler']) {
      const pid = await waitFor(`a ${singleton} leader`, () => leaderPid(singleton));
      expect(replicas.map((r) => r.proc.child.pid)).toContain(pid);
    }
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_locks where locktype = 'advisory' and granted and database = ${THIS_DATABASE} and classid = ${0x62657274}::bigint::oid and objid = (hashtext('scheduler')::bigint & 4294967295)::oid`.execute(db());
    expect(rows[0].n).toBe(1);
  });

  it('serves one session from every replica: created through A, executed through B, its terminal through C', async () => {
    const [a, b, c] = replicas;
    const created = await a.admin.call('POST', '/session', { body: { name: 'across', image: 'python' } });
    expect(created.status).toBe('RUNNING');
    const ran = await b.admin.call('POST', '/session/across', { body: { mode: 'query', runId: null, code: 'print(6 * 7)' } });
    expect(ran.result.console).toEqual([['stdout', '42\n']]);
    const term = await connectStream(c.url, ADMIN, '/stream/session/across/pty');
    term.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo from-$((40 + 2))\n') }));
    await term.next(() => term.frames.filter((f) => f.type === 'out').map((f) => unb64(f.data)).join('').includes('from-42'));
    term.ws.close();
    await a.admin.call('DELETE', '/session/across');
  });

  it('delivers an event raised on A to an SSE client on B, once', async () => {
    const [a, b] = replicas;
    const stream = await openEventStream(b.url, ADMIN, '/events/session', { name: 'evented' });
    expect(stream.status).toBe(200);
    const created = await a.admin.call('POST', '/session', { body: { name: 'evented', image: 'shell' } });
    await stream.next((e) => e.event === 'session_started' && e.data.sessionId === created.sessionId);
    await a.admin.call('DELETE', '/session/evented');
    await stream.next((e) => e.event === 'session_terminated' && e.data.sessionId === created.sessionId);
    stream.close();
    const names = stream.events.filter((e) => e.data.sessionId === created.sessionId).map((e) => e.event);
    expect(names.filter((n) => n === 'session_started')).toHaveLength(1);
    expect(names.filter((n) => n === 'session_terminated')).toHaveLength(1);
    expect(new Set(names).size).toBe(names.length);
  });

  it('never allocates past a keypair limit under 200 concurrent creates spread over the replicas', async () => {
    await db().insertInto('keypair_resource_policies').values({ name: 'replicas-two', total_resource_slots: JSON.stringify({}), allowed_vfolder_hosts: '{}', max_concurrent_sessions: 2 }).execute();
    const carol = await newUser({ policy: 'replicas-two' });
    const clients = replicas.map((r) => carol.client(r));
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => clients[i % 3].request('POST', '/session', { body: { name: `spread-${i}`, image: 'shell', enqueueOnly: true } })),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const holding = () => db().selectFrom('sessions').select(['id', 'status']).where('access_key', '=', carol.accessKey).where('status', 'not in', ['PENDING', 'TERMINATED', 'CANCELLED']).execute();
    let most = 0;
    await waitFor('two running sessions', async () => {
      const now = await holding();
      most = Math.max(most, now.length);
      return now.filter((s) => s.status === 'RUNNING').length === 2;
    });
    // Triggers from every replica (a pass each) must not let a third in.
    for (const r of alive()) await r.admin.call('POST', '/manager/scheduler/trigger', { body: { event: 'schedule' } });
    await waitFor('the passes asked for', async () => {
      const rows = await db().selectFrom('sessions').select('id').where('access_key', '=', carol.accessKey).where('status', '=', 'PENDING').where(sql<boolean>`status_data->'scheduler'->>'retries' is not null`).execute();
      return rows.length === 198;
    });
    most = Math.max(most, (await holding()).length);
    expect(most).toBe(2);
    for (const c of clients) c.close();
  });

  it('keeps starting sessions when the scheduler leader is killed in a burst, and says how fast it took over', async () => {
    // The 200 queued sessions above are cleared first: the burst must not wait behind them.
    await replicas[0].admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: true } });
    await replicas[0].admin.call('PUT', '/manager/status', { body: { status: 'running', force_kill: false } });
    const before = await waitFor('a scheduler leader', () => leaderPid('scheduler'));
    const leader = replicas.find((r) => r.proc.child.pid === before)!;
    const others = replicas.filter((r) => r !== leader && r.name !== 'C');
    const front = others[0] ?? replicas.find((r) => r !== leader)!;
    await waitFor('the front replica running', async () => (await front.admin.call('GET', '/manager/status')).status === 'running');
    const dave = await newUser();
    const client = dave.client(front);
    const burst = Array.from({ length: 4 }, (_, i) => client.call('POST', '/session', { body: { name: `burst-${i}`, image: 'shell', enqueueOnly: true } }));
    const first = await burst[0];
    expect(first.sessionId).toBeTruthy();
    const killedAt = Date.now();
    await stopProcess(leader.proc.child, 'SIGKILL');
    const ids = [first.sessionId, ...(await Promise.all(burst.slice(1))).map((s) => s.sessionId)];
    const after = await waitFor('a new scheduler leader', async () => {
      const pid = await leaderPid('scheduler');
      return pid !== null && pid !== before ? pid : null;
    });
    const takeoverMs = Date.now() - killedAt;
    expect(alive().map((r) => r.proc.child.pid)).toContain(after);
    let statuses = '';
    await waitFor(`every session of the burst running (${statuses})`, async () => {
      const rows = await db().selectFrom('sessions').select(['status', 'status_info']).where('id', 'in', ids).execute();
      statuses = JSON.stringify(rows);
      return rows.length === 4 && rows.every((r) => r.status === 'RUNNING');
    }).catch(async (err) => {
      const holding = await db().selectFrom('kernels').select(['session_id', 'status', 'occupied_slots', 'agent_id']).where('status', 'not in', ['TERMINATED', 'CANCELLED']).execute();
      throw new Error(`${statuses}\nholding: ${JSON.stringify(holding)}\n${err.message}`);
    });
    console.log(`scheduler takeover after SIGKILL of replica ${leader.name}: ${takeoverMs} ms (upper bound: the test's polling included)`);
    // Ended through a replica that did not launch them (the new leader did): their sandboxes still go.
    const kernels = (await db().selectFrom('kernels').select('id').where('session_id', 'in', ids).execute()).map((k) => k.id);
    expect(kernels.every((k) => sandboxKernels().has(k))).toBe(true);
    const ender = dave.client(alive().find((r) => r.proc.child.pid !== after)!);
    await Promise.all(ids.map((id) => ender.call('DELETE', `/session/${id}`)));
    ender.close();
    await waitFor('the burst sandboxes gone', async () => kernels.every((k) => !sandboxKernels().has(k)));
    client.close();
  }, 60_000);

  it('holds the rate limit across replicas: the (limit+1)th request in the window is refused wherever it lands', async () => {
    const erin = await newUser({ rateLimit: 7 });
    const [x, y] = alive();
    const clients = [erin.client(x), erin.client(y)];
    const answers = await Promise.all(Array.from({ length: 7 }, (_, i) => clients[i % 2].request('GET', '/auth/role')));
    expect(answers.map((a) => a.status)).toEqual(Array(7).fill(200));
    for (const c of clients) {
      const refused = await c.request('GET', '/auth/role');
      expect(refused.status).toBe(429);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    }
    for (const c of clients) c.close();
  });

  it('sees a change made through one replica on another at once: manager status and keypairs', async () => {
    const [x, y] = alive();
    await x.admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: false } });
    const frank = await newUser();
    const client = frank.client(y);
    // The freeze reached y's in-memory state: its next state-changing request is refused.
    await waitFor('y frozen', async () => (await client.request('POST', '/session', { body: { name: 'frozen-out', image: 'shell', enqueueOnly: true } })).status === 503);
    await x.admin.call('PUT', '/manager/status', { body: { status: 'running', force_kill: false } });
    await waitFor('y running', async () => (await y.admin.call('GET', '/manager/status')).status === 'running');
    // A keypair deactivated through x stops working on y, which had just cached it.
    expect((await client.request('GET', '/auth/role')).status).toBe(200);
    const gql = await x.admin.call('POST', '/admin/gql', { body: { query: 'mutation($k: String!) { modify_keypair(access_key: $k, props: { is_active: false }) { ok } }', variables: { k: frank.accessKey } } });
    expect(gql.data.modify_keypair.ok).toBe(true);
    // Well within the cache's 5 s lifetime: the invalidation reached y, not the expiry.
    await waitFor('the keypair refused on y', async () => (await client.request('GET', '/auth/role')).status === 401, 2_000);
    client.close();
  });

  it('drains on SIGTERM: a request in flight finishes, WebSocket clients are told to reconnect (1012), the process exits', async () => {
    const [x, y] = alive();
    await y.admin.call('POST', '/session', { body: { name: 'drained', image: 'python' } });
    const term = await connectStream(x.url, ADMIN, '/stream/session/drained/pty');
    // A create that waits for its session to start is in flight on x (its row exists) when x is told to stop.
    const inFlight = x.admin.request('POST', '/session', { body: { name: 'in-flight', image: 'shell' } });
    await waitFor('the in-flight create to reach x', () => db().selectFrom('sessions').select('id').where('name', '=', 'in-flight').executeTakeFirst());
    const exited = stopProcess(x.proc.child, 'SIGTERM');
    const closed = await Promise.race([term.closed, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
    expect(closed?.code, x.proc.output().slice(-3000)).toBe(1012);
    expect(await exited, x.proc.output().slice(-3000)).toBe(0);
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body.toString()).status).toBe('RUNNING');
    // The session lives on, served by the replica left.
    const ran = await y.admin.call('POST', '/session/drained', { body: { mode: 'query', runId: null, code: 'print("still-here")' } });
    expect(JSON.stringify(ran.result.console)).toContain('still-here');
  });
});
