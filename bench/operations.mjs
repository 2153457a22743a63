// Operating Berth (issue 14): what metrics and the audit log cost the signed API (the same build with
// BERTH_OBSERVE_REQUESTS on and off, in the same run, alternating), the time of a /metrics scrape with 10,000
// session records and 100 agents, and the CPU of one idle-culler pass over 1,000 running sessions. The last two run
// in this process on each database (rows seeded with set-based SQL).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { freePort, loadClient, loadGenerator, measure, printTable, startServer } from './harness.mjs';
import { startPostgres } from '../scripts/postgres.mjs';
import { buildServer } from '../scripts/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { signRequest, BerthClient } = await loadClient(root);
const duration = Number(process.env.BENCH_SECONDS ?? 5);
const ACCESS_KEY = 'AKBENCH0000000000001';
const SECRET_KEY = 'benchSecretKey00000000000000000000000000';

async function startManager(env) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-'));
  const proc = await startServer(root, {
    BERTH_ROLES: 'manager', BERTH_MANAGER_PORT: String(port), BERTH_DATA_DIR: dataDir,
    BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY, BERTH_LOG_LEVEL: 'warn', ...env,
  }, /Berth ready/);
  const url = `http://127.0.0.1:${port}`;
  const admin = new BerthClient({ endpoint: url, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
  const answer = await admin.call('POST', '/admin/gql', { body: { query: `mutation { modify_keypair(access_key: "${ACCESS_KEY}", props: {rate_limit: null}) { ok msg } }` } });
  if (!answer.data?.modify_keypair?.ok) throw new Error(`could not lift the rate limit: ${JSON.stringify(answer)}`);
  admin.close();
  return { url, host: `127.0.0.1:${port}`, pid: proc.child.pid, stop: async () => { await proc.stop(); rmSync(dataDir, { recursive: true, force: true }); } };
}

/** CPU seconds a process has used (user + system), from /proc: less sensitive to a busy machine than req/s. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One load run, with the server's CPU per request. */
async function measureWithCpu(manager, request) {
  const before = cpuSeconds(manager.pid);
  const result = await measure({ ...request, duration });
  const spent = cpuSeconds(manager.pid) - before;
  // measure() runs a 1 s warm-up first: count its requests too (at the same rate).
  return { ...result, cpuUs: (spent / (result.rps * (duration + 1))) * 1e6 };
}

const signed = (host, method, uri, body) => signRequest({ method, uri, host, accessKey: ACCESS_KEY, secretKey: SECRET_KEY, body });
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

await buildServer();
console.log(`load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores`);

// 1. Throughput with observation on and off: two managers side by side, cases alternated twice to spread drift.
const off = await startManager({ BERTH_OBSERVE_REQUESTS: 'false' });
const on = await startManager({ BERTH_OBSERVE_REQUESTS: 'true', BERTH_METRICS_TOKEN: 'bench' });
const configBody = JSON.stringify({ key: 'manager/status', prefix: false });
const cases = [
  ['signed GET /v2 (counted and timed)', (m) => ({ url: `${m.url}/v2`, headers: signed(m.host, 'GET', '/v2') })],
  ['signed POST /config/get (also audited)', (m) => ({ url: `${m.url}/config/get`, method: 'POST', body: configBody, headers: signed(m.host, 'POST', '/config/get', configBody) })],
];
const rows = [];
const cpu = [];
try {
  for (const [name, request] of cases) {
    const runs = { off: [], on: [] };
    // Warm both up first: the first seconds of a process are JIT compilation, not the steady cost.
    for (const manager of [off, on]) await measure({ ...request(manager), duration: 2 });
    for (const round of [0, 1, 0, 1].slice(0, Number(process.env.BENCH_ROUNDS ?? 4))) {
      for (const [label, manager] of round ? [['on', on], ['off', off]] : [['off', off], ['on', on]]) {
        runs[label].push(await measureWithCpu(manager, request(manager)));
      }
    }
    const offRps = mean(runs.off.map((r) => r.rps));
    cpu.push([name, median(runs.off.map((r) => r.cpuUs)), median(runs.on.map((r) => r.cpuUs))]);
    if (process.env.BENCH_VERBOSE) console.log(name, 'µs/request off', runs.off.map((r) => r.cpuUs.toFixed(0)).join(' '), 'on', runs.on.map((r) => r.cpuUs.toFixed(0)).join(' '));
    rows.push({ name: `${name}, observation off`, rps: offRps, p50: mean(runs.off.map((r) => r.p50)), p99: mean(runs.off.map((r) => r.p99)), errors: runs.off.reduce((a, r) => a + r.errors, 0) });
    rows.push({ name: `${name}, metrics + audit on`, rps: mean(runs.on.map((r) => r.rps)), p50: mean(runs.on.map((r) => r.p50)), p99: mean(runs.on.map((r) => r.p99)), errors: runs.on.reduce((a, r) => a + r.errors, 0), baseline: offRps });
  }
} finally {
  await off.stop();
  await on.stop();
}
printTable(`Signed API with metrics and the audit log on vs off (${process.env.BENCH_ROUNDS ?? 4} × ${duration}s per case, alternating, 16 connections, load from ${loadGenerator()})`, rows);
console.log('\n| case | server CPU µs/request (median of rounds), off | on | cost |');
console.log('|---|---:|---:|---:|');
for (const [name, offUs, onUs] of cpu) console.log(`| ${name} | ${offUs.toFixed(0)} | ${onUs.toFixed(0)} | ${(((onUs - offUs) / offUs) * 100).toFixed(1)} % |`);

if (process.env.BENCH_OPERATIONS === 'throughput') process.exit(0);

// 2 and 3, in this process on each database.
await build({ absWorkingDir: root, entryPoints: { 'operations-fixture': 'bench/operations-fixture.ts' }, outdir: 'dist', outExtension: { '.js': '.mjs' }, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
const { startFixture } = await import(path.join(root, 'dist/operations-fixture.mjs'));
console.log('\n| database | /metrics scrape min ms | p50 ms | p95 ms | body KiB | idle pass CPU ms (mean) | wall ms (mean) | sessions checked | activity stored |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const kind of ['PGlite', 'PostgreSQL']) {
  const pg = kind === 'PostgreSQL' ? await startPostgres() : null;
  const fixture = await startFixture({ databaseUrl: pg?.url, sessions: 10_000, running: 1_000, agents: 100 });
  try {
    for (let i = 0; i < 3; i++) await fixture.scrape();
    const scrapes = [];
    let bytes = 0;
    for (let i = 0; i < 20; i++) {
      const s = await fixture.scrape();
      scrapes.push(s.ms);
      bytes = s.bytes;
    }
    for (let i = 0; i < 3; i++) await fixture.idlePass(100);
    const passes = [];
    for (let i = 0; i < 20; i++) passes.push(await fixture.idlePass(100));
    const checked = passes[0].result.checked;
    const stored = mean(passes.map((p) => p.result.stored));
    console.log(`| ${kind} | ${Math.min(...scrapes).toFixed(1)} | ${percentile(scrapes, 50).toFixed(1)} | ${percentile(scrapes, 95).toFixed(1)} | ${(bytes / 1024).toFixed(0)} | ${mean(passes.map((p) => p.cpuMs)).toFixed(1)} | ${mean(passes.map((p) => p.wallMs)).toFixed(1)} | ${checked} | ${stored.toFixed(0)} |`);
  } finally {
    await fixture.stop();
    pg?.stop();
  }
}
console.log(`\n10,000 session records (1,000 RUNNING), 100 agents; 100 sessions touched before each idle pass. On PostgreSQL the server's own CPU is not in "CPU ms". Load average at end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
