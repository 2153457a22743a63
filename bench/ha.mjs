// Several replicas on one PostgreSQL (issue 15). Three figures, each with its baseline from the same run:
//  1. signed-API throughput with 1, 2 and 3 replicas behind one load generator (per replica and total; baseline:
//     1 replica);
//  2. the scheduler's leader takeover after SIGKILL (p50 and max of 10; the lease is tried every 2 s);
//  3. event fan-out: the time from an event's arrival on an SSE client of the replica that raised it to its arrival
//     on an SSE client of another replica (p50, p99; baseline: the same-replica client, 0 by definition).
// Replicas are the built server (dist/server.mjs) as separate processes; the load generator runs here.
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort, loadClient, loadGenerator, measure, printTable, startServer } from './harness.mjs';
import { startPostgres } from '../scripts/postgres.mjs';
import { buildServer } from '../scripts/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { signRequest, BerthClient } = await loadClient(root);

const ACCESS_KEY = 'AKBENCH0000000000015';
const SECRET_KEY = 'benchSecretKey00000000000000000000000015';
const duration = Number(process.env.BENCH_SECONDS ?? 5);
const TAKEOVERS = 10;
const EVENTS = 200;

await buildServer();
const database = await startPostgres();
const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-ha-'));
const replicas = [];

async function startReplica() {
  const port = await freePort();
  const proc = await startServer(root, {
    BERTH_ROLES: 'manager', BERTH_MANAGER_PORT: String(port), BERTH_DATA_DIR: dataDir, BERTH_DATABASE_URL: database.url,
    BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY, BERTH_LOG_LEVEL: 'warn',
  }, /Berth ready/);
  const replica = { proc, pid: proc.child.pid, url: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` };
  replicas.push(replica);
  return replica;
}

const signed = (host, method, uri) => signRequest({ method, uri, host, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const probe = new pg.Client({ connectionString: database.url });
/** The OS pid of the scheduler's lease holder (server/cluster/leases: advisory lock class 'bert'). */
async function leaderPid() {
  const { rows } = await probe.query(`
    select a.application_name as app from pg_locks l join pg_stat_activity a on a.pid = l.pid
    where l.locktype = 'advisory' and l.granted and l.classid = 1650815604::bigint::oid
      and l.objid = (hashtext('scheduler')::bigint & 4294967295)::oid`);
  const m = rows[0]?.app.match(/pid=(\d+)/);
  return m ? Number(m[1]) : null;
}

/** A signed SSE stream; calls onEvent(name, data) as events arrive. */
function openEvents(replica, onEvent) {
  const uri = '/events/session';
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: new URL(replica.url).port, path: uri, headers: { ...signed(replica.host, 'GET', uri), Host: replica.host } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE refused: ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let at;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const name = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (name && data) onEvent(name, JSON.parse(data));
        }
      });
      resolve(() => req.destroy());
    });
    req.on('error', reject);
    req.end();
  });
}

try {
  await probe.connect();
  const first = await startReplica();
  const admin = new BerthClient({ endpoint: first.url, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
  // The bootstrap keypair is limited to 10,000 requests per 15 minutes; the load needs more.
  const lifted = await admin.call('POST', '/admin/gql', { body: { query: `mutation { modify_keypair(access_key: "${ACCESS_KEY}", props: {rate_limit: null}) { ok } }` } });
  if (!lifted.data?.modify_keypair?.ok) throw new Error(`could not lift the rate limit: ${JSON.stringify(lifted)}`);
  admin.close();
  await startReplica();
  await startReplica();

  // 1. Throughput: the same 16 connections in total, spread evenly over n replicas.
  const rows = [];
  let single = 0;
  for (const n of [1, 2, 3]) {
    const targets = replicas.slice(0, n);
    const runs = await Promise.all(
      targets.map((r) => measure({ url: `${r.url}/v2`, headers: signed(r.host, 'GET', '/v2'), duration, connections: Math.max(1, Math.round(16 / n)) })),
    );
    const total = runs.reduce((sum, r) => sum + r.rps, 0);
    if (n === 1) single = total;
    runs.forEach((r, i) => rows.push({ name: `${n} replica(s): replica ${i + 1}`, ...r, baseline: single }));
    rows.push({ name: `${n} replica(s): total`, rps: total, p50: NaN, p99: NaN, errors: runs.reduce((s, r) => s + r.errors, 0), baseline: single });
  }
  printTable(`Signed GET /v2 over 1-3 replicas on one PostgreSQL (${duration}s, 16 connections in all, load from ${loadGenerator()} in one process; baseline: 1 replica)`, rows);

  // 2. Takeover: kill the leader, time until another replica holds the lease; a fresh replica keeps three.
  const takeovers = [];
  for (let i = 0; i < TAKEOVERS; i++) {
    let leader;
    while (!(leader = await leaderPid())) await sleep(20);
    const victim = replicas.find((r) => r.pid === leader);
    const killedAt = performance.now();
    victim.proc.child.kill('SIGKILL');
    for (;;) {
      const now = await leaderPid();
      if (now && now !== leader) break;
      await sleep(5);
    }
    takeovers.push(performance.now() - killedAt);
    replicas.splice(replicas.indexOf(victim), 1);
    await startReplica();
  }
  takeovers.sort((a, b) => a - b);
  console.log(`\nScheduler leader takeover after SIGKILL (${TAKEOVERS} kills, 3 replicas, lease tried every 2 s): p50 ${Math.round(percentile(takeovers, 50))} ms, max ${Math.round(takeovers[takeovers.length - 1])} ms`);

  // 3. Fan-out: sessions that can never be placed (they ask for more CPUs than any machine has) raise one
  // session_enqueued event each on the replica that took the request, and start nothing.
  const [a, b] = replicas;
  const seenA = new Map();
  const seenB = new Map();
  const stopA = await openEvents(a, (name, data) => name === 'session_enqueued' && seenA.set(data.sessionId, performance.now()));
  const stopB = await openEvents(b, (name, data) => name === 'session_enqueued' && seenB.set(data.sessionId, performance.now()));
  const client = new BerthClient({ endpoint: a.url, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
  const ids = [];
  for (let i = 0; i < EVENTS; i++) {
    const created = await client.call('POST', '/session', { body: { name: `fanout-${i}`, image: 'shell', enqueueOnly: true, config: { resources: { cpu: 100000 } } } });
    ids.push(created.sessionId);
  }
  while (ids.some((id) => !seenB.has(id) || !seenA.has(id))) await sleep(20);
  const gaps = ids.map((id) => seenB.get(id) - seenA.get(id)).sort((x, y) => x - y);
  console.log(`Event fan-out A -> SSE on B after the same event reached SSE on A (${EVENTS} events): p50 ${percentile(gaps, 50).toFixed(2)} ms, p99 ${percentile(gaps, 99).toFixed(2)} ms (baseline: same replica, 0 ms)`);
  stopA();
  stopB();
  await client.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: true } });
  client.close();
} finally {
  await Promise.all(replicas.map((r) => r.proc.stop()));
  await probe.end().catch(() => undefined);
  database.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
