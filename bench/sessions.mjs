// Session start, execution round trip and the scheduler alone (issue: compute sessions, performance).
// Baselines measured in the same run: a bare `bwrap ... true` for start, nothing for the scheduler pass.
// Knobs: BENCH_SESSIONS (50 starts per image), BENCH_CPU_PROF (a directory: Berth runs with --cpu-prof into it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { benchNodeArgs, freePort, loadClient, startServer } from './harness.mjs';
import { buildServer } from '../scripts/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { BerthClient } = await loadClient(root);
const ACCESS_KEY = 'AKBENCH0000000000002';
const SECRET_KEY = 'benchSecretKey00000000000000000000000002';
const N = Number(process.env.BENCH_SESSIONS ?? 50);

const pct = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (x) => x.toFixed(1);

/** A bare bubblewrap sandbox running `command` (no cgroups, no runner): the floor under every start. */
function bareBwrap(command) {
  const times = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    spawnSync('bwrap', ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin', '--proc', '/proc', '--dev', '/dev', ...command]);
    times.push(performance.now() - t);
  }
  return times;
}

/**
 * Where a start's time goes, from the session's own status_history (each status entered, with its time): the
 * request until the session's row exists (admission), then each status until RUNNING, then RUNNING until the
 * answer arrived (persist and answer). Same machine, so the server's clock is the client's.
 */
async function startPhases(client, sessionId, sentAt, answeredAt) {
  const answer = await client.call('POST', '/admin/gql', { body: { query: 'query($id: UUID!) { compute_session(id: $id) { created_at status_history } }', variables: { id: sessionId } } });
  const s = answer.data.compute_session;
  const history = Object.entries(JSON.parse(s.status_history)).map(([status, at]) => [status, Date.parse(at)]).sort((a, b) => a[1] - b[1]);
  const phases = [['admission (request → PENDING row)', Date.parse(s.created_at) - sentAt]];
  for (let i = 1; i < history.length; i++) phases.push([`${history[i - 1][0]} → ${history[i][0]}`, history[i][1] - history[i - 1][1]]);
  phases.push(['persist and answer (RUNNING → response)', answeredAt - history.at(-1)[1]]);
  return phases;
}

async function sessionStarts(client, image) {
  const times = [];
  const phases = new Map();
  for (let i = 0; i < N; i++) {
    const name = `bench-${image}-${i}`;
    const sentAt = Date.now();
    const t = performance.now();
    const res = await client.call('POST', '/session', { body: { name, image, group: 'default' } });
    times.push(performance.now() - t);
    const answeredAt = Date.now();
    if (res.status !== 'RUNNING') throw new Error(`session ${name} is ${res.status}`);
    for (const [phase, ms] of await startPhases(client, res.sessionId, sentAt, answeredAt)) phases.set(phase, [...(phases.get(phase) ?? []), ms]);
    await client.call('DELETE', `/session/${name}`);
  }
  times.phases = phases;
  return times;
}

async function execRoundTrips(client) {
  await client.call('POST', '/session', { body: { name: 'bench-exec', image: 'python', group: 'default' } });
  const times = [];
  for (let i = 0; i < N * 10; i++) {
    const t = performance.now();
    const { result } = await client.call('POST', '/session/bench-exec', { body: { mode: 'query', runId: null, code: 'print(1)' } });
    times.push(performance.now() - t);
    if (result.status !== 'finished') throw new Error(`run ended ${result.status}`);
  }
  await client.call('DELETE', '/session/bench-exec');
  return times;
}

async function schedulerPass() {
  await build({ absWorkingDir: root, entryPoints: { 'bench-schedule': 'server/sessions/scheduler/schedule.ts' }, outdir: 'dist', outExtension: { '.js': '.mjs' }, bundle: true, platform: 'node', format: 'esm', logLevel: 'warning' });
  const { schedule } = await import(path.join(root, 'dist/bench-schedule.mjs'));
  const agents = Array.from({ length: 1000 }, (_, i) => ({ id: `a${i}`, scalingGroup: 'default', total: { cpu: 64, mem: 256 * 2 ** 30 }, free: { cpu: 64, mem: 256 * 2 ** 30 } }));
  const pending = Array.from({ length: 10_000 }, (_, i) => ({
    id: `s${i}`, accessKey: `ak${i % 500}`, groupId: 'g', domainName: 'default', scalingGroup: 'default', priority: 10, createdAt: i,
    perKernel: { cpu: 1 + (i % 4), mem: (1 + (i % 8)) * 2 ** 30 }, kernelCount: 1 + (i % 3 === 0 ? 1 : 0), singleNode: i % 2 === 0,
    agentList: null, countsForConcurrency: true, unmetDependencies: 0, startsAt: null,
  }));
  const rows = [];
  for (const [selection, placement] of [['fifo', 'dispersed'], ['drf', 'concentrated'], ['lifo', 'roundrobin']]) {
    const input = () => ({ pending, agents: agents.map((a) => ({ ...a, free: { ...a.free } })), keypairs: new Map(), groups: new Map(), domains: new Map(), selection, placement, now: Date.now() });
    const t = performance.now();
    const result = schedule(input());
    rows.push({ selection, placement, ms: performance.now() - t, assigned: result.assigned.size });
  }
  return rows;
}

await buildServer();
const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-'));
const berth = await startServer(root, {
  BERTH_ROLES: 'manager', BERTH_MANAGER_PORT: String(port), BERTH_DATA_DIR: dataDir, BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY, BERTH_LOG_LEVEL: 'warn',
}, /Berth ready/, benchNodeArgs());
const client = new BerthClient({ endpoint: `http://127.0.0.1:${port}`, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
try {
  const bare = bareBwrap(['true']);
  const barePython = bareBwrap(['/usr/bin/python3', '-S', '-c', 'pass']);
  const shell = await sessionStarts(client, 'shell');
  const python = await sessionStarts(client, 'python');
  const exec = await execRoundTrips(client);
  console.log(`\nSession start, POST /session → RUNNING (${N} sessions each, sequential)`);
  console.log('| case | p50 ms | p95 ms |');
  console.log('|---|---:|---:|');
  console.log(`| bare bwrap ... true (baseline) | ${ms(pct(bare, 50))} | ${ms(pct(bare, 95))} |`);
  console.log(`| bare bwrap ... python3 -S -c pass (baseline: the interpreter's own start) | ${ms(pct(barePython, 50))} | ${ms(pct(barePython, 95))} |`);
  console.log(`| image shell | ${ms(pct(shell, 50))} | ${ms(pct(shell, 95))} |`);
  console.log(`| image python | ${ms(pct(python, 50))} | ${ms(pct(python, 95))} |`);
  for (const [image, starts] of [['shell', shell], ['python', python]]) {
    console.log(`\nWhere a start of image ${image} goes (p50 of each phase, ms; from status_history, 1 ms resolution)`);
    console.log('| phase | p50 ms | p95 ms |\n|---|---:|---:|');
    for (const [phase, values] of starts.phases) console.log(`| ${phase} | ${ms(pct(values, 50))} | ${ms(pct(values, 95))} |`);
  }
  console.log(`\nExecution round trip, print(1) in query mode (${exec.length} runs): p50 ${ms(pct(exec, 50))} ms, p99 ${ms(pct(exec, 99))} ms`);
} finally {
  client.close();
  await berth.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
const passes = await schedulerPass();
console.log('\nScheduler pass alone: 10,000 pending sessions over 1,000 agents');
console.log('| selection | placement | ms | sessions placed |');
console.log('|---|---|---:|---:|');
for (const r of passes) console.log(`| ${r.selection} | ${r.placement} | ${ms(r.ms)} | ${r.assigned} |`);
