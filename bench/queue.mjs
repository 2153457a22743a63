// The queue (README "The queue"): submissions/s per band of 1,000 pending sessions, the real scheduling pass
// (driver + queries) over a queue of unplaceable sessions, and the time from freed capacity to SCHEDULED.
// Runs on PGlite, or on a throwaway PostgreSQL with BENCH_DB=postgres. BENCH_QUEUE=10000 sets the queue length.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, loadClient, startServer } from './harness.mjs';
import { buildServer } from '../scripts/build.mjs';
import { startPostgres } from '../scripts/postgres.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { BerthClient } = await loadClient(root);
const ACCESS_KEY = 'AKBENCH0000000000003';
const SECRET_KEY = 'benchSecretKey00000000000000000000000003';
const TOTAL = Number(process.env.BENCH_QUEUE ?? 10_000);
const BAND = Math.min(1000, TOTAL);
const CLIENTS = 20;
const DB = process.env.BENCH_DB === 'postgres' ? 'postgres' : 'pglite';

/** The dashboard's session-list query, as components/sessions/useSessions.ts sends it for the "running" tab. */
const LIST_QUERY = `query($status: String, $limit: Int, $offset: Int, $order: String, $filter: String) {
  compute_session_list(status: $status, limit: $limit, offset: $offset, order: $order, filter: $filter) {
    total_count
    items { id name type status status_info queue_position estimated_start image created_at terminated_at occupied_slots cluster_size group_name }
  }
}`;
const LIST_VARIABLES = { status: 'PENDING,SCHEDULED,PULLING,PREPARING,RUNNING,RESTARTING,RUNNING_DEGRADED,TERMINATING,ERROR', limit: 25, offset: 0, order: '-created_at', filter: null };
const LIST_RUNS = Number(process.env.BENCH_LIST_RUNS ?? 100);

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const tomorrow = new Date(Date.now() + 86_400_000).toISOString();

/** Submits `count` enqueueOnly batch sessions from CLIENTS concurrent clients; answers submissions/s. */
async function submit(client, prefix, count, extra) {
  let next = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < count) {
      const i = next++;
      await client.call('POST', '/session', { body: { name: `${prefix}-${i}`, image: 'shell', group: 'default', type: 'batch', startupCommand: 'true', enqueueOnly: true, ...extra } });
    }
  }));
  return count / ((performance.now() - t) / 1000);
}

/** Submits `count` enqueueOnly sessions through `path` (a template's create) from CLIENTS concurrent clients; submissions/s. */
async function submitThrough(client, path, count, bodyOf) {
  let next = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < count) await client.call('POST', path, { body: bodyOf(next++) });
  }));
  return count / ((performance.now() - t) / 1000);
}

/**
 * A stored batch session template, and a two-node cluster template of a second one larger than any agent (a cluster
 * session cannot be reserved for later, so it is measured due but unplaceable, as the plain due submissions are).
 */
async function templates(client) {
  const task = (name, spec) => ({ api_version: 'v1', kind: 'taskTemplate', metadata: { name }, spec: { session_type: 'batch', kernel: { image: 'shell', architecture: 'x86_64', run: { startup_command: 'true' } }, ...spec } });
  const store = async (kind, template) => (await client.call('POST', `/template/${kind}`, { body: { group: 'default', domain: 'default', payload: JSON.stringify(template) } }))[0].id;
  const session = await store('session', { template: task('bench-task', {}) });
  const huge = await store('session', { template: task('bench-huge', { resources: { cpu: 100000 } }) });
  const cluster = await store('cluster', { api_version: 'v1', kind: 'clusterTemplate', mode: 'single-node', metadata: { name: 'bench-cluster' }, spec: { nodes: [{ role: 'main', session_template: huge, replicas: 1 }, { role: 'sub', session_template: huge, replicas: 1 }] } });
  return { session, cluster };
}

/** Runs `task(i)` for i < count from CLIENTS concurrent clients. */
async function forEach(count, task) {
  let next = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < count) await task(next++);
  }));
}

/** The dashboard's session list, one request at a time (the first 10 warm up and are not counted): ms each. */
async function listTimes(client) {
  const times = [];
  for (let i = 0; i < LIST_RUNS + 10; i++) {
    const t = performance.now();
    await client.call('POST', '/admin/gql', { body: { query: LIST_QUERY, variables: LIST_VARIABLES } });
    if (i >= 10) times.push(performance.now() - t);
  }
  return times;
}
const listLine = (what, times) => `Dashboard session-list query (GraphQL, 25 rows) with ${what}: p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms`;

/** Operator-triggered passes, timed by the manager's own report (GET /manager/scheduler/status). */
async function passTimes(client, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const asked = Date.now();
    await client.call('POST', '/manager/scheduler/trigger', { body: { event: 'schedule' } });
    for (;;) {
      const { schedule } = await client.call('GET', '/manager/scheduler/status');
      if (schedule.finish_time && Date.parse(schedule.execution_time) >= asked - 1) {
        times.push(Date.parse(schedule.finish_time) - Date.parse(schedule.execution_time));
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  return times;
}

/** Fills the local agent with one session, queues a small one, ends the big one: SCHEDULED − capacity freed. */
async function freedToScheduled(client, runs) {
  const { data } = await client.call('POST', '/admin/gql', { body: { query: '{ agents { available_slots } }' } });
  const cpu = String(JSON.parse(data.agents[0].available_slots).cpu);
  const latencies = [];
  for (let i = 0; i < runs; i++) {
    const big = `bench-big-${i}`;
    const small = `bench-small-${i}`;
    await client.call('POST', '/session', { body: { name: big, image: 'shell', group: 'default', config: { resources: { cpu } } } });
    await client.call('POST', '/session', { body: { name: small, image: 'shell', group: 'default', enqueueOnly: true } });
    await client.call('DELETE', `/session/${big}`);
    let info;
    for (let tries = 0; tries < 500; tries++) {
      info = await client.call('GET', `/session/${small}`);
      if (info.statusHistory.SCHEDULED) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const bigInfo = await client.call('GET', `/session/${big}`);
    const freed = Date.parse(bigInfo.statusHistory.TERMINATED ?? bigInfo.terminationTime);
    latencies.push(Date.parse(info.statusHistory.SCHEDULED) - freed);
    await client.call('DELETE', `/session/${small}`, { query: { forced: true } });
  }
  return latencies;
}

await buildServer();
const pg = DB === 'postgres' ? await startPostgres() : null;
const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-'));
const berth = await startServer(root, {
  BERTH_ROLES: 'manager', BERTH_MANAGER_PORT: String(port), BERTH_DATA_DIR: dataDir, BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY, BERTH_LOG_LEVEL: 'warn',
  ...(pg ? { BERTH_DATABASE_URL: pg.url } : {}),
}, /Berth ready/, process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []);
const client = new BerthClient({ endpoint: `http://127.0.0.1:${port}`, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
try {
  // 20,000+ requests in minutes: lift the bench keypair's rate limit (10,000 per 15 min by default).
  await client.call('POST', '/admin/gql', { body: { query: `mutation { modify_keypair(access_key: "${ACCESS_KEY}", props: { rate_limit: 10000000 }) { ok msg } }` } });
  // A superadmin has no concurrency limit worth hitting here; lift the default policy's anyway.
  await client.call('POST', '/admin/gql', { body: { query: 'mutation { modify_keypair_resource_policy(name: "default", props: { max_concurrent_sessions: 0, total_resource_slots: "{}" }) { ok msg } }' } }).catch(() => undefined);
  const latencies = await freedToScheduled(client, Number(process.env.BENCH_LATENCY_RUNS ?? 10));
  console.log(`Freed capacity → SCHEDULED on ${DB} (${latencies.length} runs): p50 ${pct(latencies, 50)} ms, max ${Math.max(...latencies)} ms`);
  console.log(`\nThe queue on ${DB}: ${CLIENTS} concurrent clients, enqueueOnly batch sessions (starts_at tomorrow), after a warm-up of ${process.env.BENCH_WARMUP ?? 3000} (cancelled)`);
  console.log('| pending before | submissions/s | vs empty queue |');
  console.log('|---:|---:|---:|');
  // Warm-up (JIT, the database's caches and statistics), then cancelled: the first band measures an empty queue, not a
  // cold process (with 500, PostgreSQL's first bands still ran 10-30 % slower than the later ones).
  const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
  await submit(client, 'warm', WARMUP, { starts_at: tomorrow });
  await forEach(WARMUP, (i) => client.call('DELETE', `/session/warm-${i}`, { query: { forced: true } }));
  let empty = 0;
  let listReserved = null;
  for (let from = 0; from < TOTAL; from += BAND) {
    const rate = await submit(client, `q${from}`, BAND, { starts_at: tomorrow });
    empty ||= rate;
    console.log(`| ${from}–${from + BAND} | ${rate.toFixed(0)} | ${((rate / empty) * 100).toFixed(0)} % |`);
    if (from === 0) listReserved = await listTimes(client);
  }
  // A queue the scheduler must look at: sessions larger than any agent, due now (all in line: each has a position).
  const due = Number(process.env.BENCH_DUE ?? TOTAL);
  const firstDue = Math.min(BAND, due);
  const huge = { config: { resources: { cpu: 100000 } } };
  const firstRate = await submit(client, 'huge', firstDue, huge);
  const listInLine = await listTimes(client);
  const restRate = due > firstDue ? await submit(client, 'huge-more', due - firstDue, huge) : firstRate;
  const dueRate = due / (firstDue / firstRate + (due - firstDue) / restRate);
  const passes = await passTimes(client, 5);
  // The template paths (CONTRACT §14) submit through the same insert.
  const ids = await templates(client);
  const fromTemplate = await submitThrough(client, '/session/_/create-from-template', BAND, (i) => ({ template_id: ids.session, name: `tmpl-${i}`, group: 'default', domain: 'default', enqueueOnly: true, starts_at: tomorrow }));
  const fromCluster = await submitThrough(client, '/session/_/create-cluster', BAND, (i) => ({ clientSessionToken: `clu-${i}`, template_id: ids.cluster, type: 'batch', group: 'default', domain: 'default', enqueueOnly: true }));
  console.log(`\n${listLine(`${BAND} pending (reserved, after the first band)`, listReserved)}`);
  console.log(listLine(`${firstDue} pending in line + ${TOTAL} reserved`, listInLine));
  console.log(`\nSubmissions of due (unplaceable) sessions, 0–${due} pending: ${dueRate.toFixed(0)}/s`);
  console.log(`From a session template (create-from-template, starts_at tomorrow), ${BAND} more: ${fromTemplate.toFixed(0)}/s (plain POST /session with an empty queue: ${empty.toFixed(0)}/s)`);
  console.log(`From a two-node cluster template (create-cluster, due but unplaceable), ${BAND} more: ${fromCluster.toFixed(0)}/s (plain due submissions: ${dueRate.toFixed(0)}/s)`);
  console.log(`Scheduling pass (driver and its queries, via POST /manager/scheduler/trigger) with ${due} due but unplaceable + ${TOTAL} reserved pending: p50 ${pct(passes, 50).toFixed(1)} ms, max ${Math.max(...passes).toFixed(1)} ms`);
} catch (err) {
  // The manager's own account of what failed (it logs errors as JSON lines on stdout).
  for (const line of berth.output().split('\n').filter((l) => /error|"level":(50|60)/i.test(l)).slice(-3)) console.error(line);
  throw err;
} finally {
  client.close();
  await berth.stop();
  rmSync(dataDir, { recursive: true, force: true });
  pg?.stop();
}
