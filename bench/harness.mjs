// Shared bench plumbing: start a process and wait for its ready line, measure (wrk, else autocannon), print a table.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SERVER_ENV, serverCommand } from '../scripts/node-flags.mjs';
/** Berth's process is started as `npm start` starts it (scripts/node-flags.mjs): these arguments, this environment. */
export { serverCommand, SERVER_ENV as serverEnv };

/** The signing client, bundled once into dist/ so plain Node can import it. */
export async function loadClient(root) {
  const { build } = await import('esbuild');
  await build({ absWorkingDir: root, entryPoints: { 'client-bundle': 'server/client/index.ts' }, outdir: 'dist', outExtension: { '.js': '.mjs' }, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return import(path.join(root, 'dist/client-bundle.mjs'));
}

export function freePort() {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Node flags a bench adds to Berth's own: BENCH_NODE_ARGS (space-separated, e.g. --trace-gc) and BENCH_CPU_PROF (a directory for --cpu-prof). */
export function benchNodeArgs() {
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return process.env.BENCH_CPU_PROF ? [...extra, '--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : extra;
}

/** Starts Berth's process as `npm start` does: its flags, then `nodeArgs`, and its environment (`env` laid over it). */
export function startServer(root, env, ready, nodeArgs = []) {
  return startProcess(serverCommand(root, ...nodeArgs), { ...SERVER_ENV, ...env }, ready);
}

/** Spawns `node args` and resolves once a stdout line matches `ready`. */
export function startProcess(args, env, ready = /ready/i) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      if (ready.test(buffer)) resolve({ child, output: () => buffer, stop: () => new Promise((done) => { child.once('exit', done); child.kill('SIGTERM'); }) });
    });
    child.once('exit', (code) => reject(new Error(`process exited (${code}) before ready:\n${buffer}`)));
  });
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** User + system CPU seconds a process (with `tree`, and its live descendants) has used (Linux /proc). */
export function cpuSeconds(pid, tree = false) {
  let total = 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    if (tree) for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)) total += cpuSeconds(Number(child), true);
  } catch {
    // The process ended while we looked.
  }
  return total;
}

/**
 * Runs one load: `connections` keep-alive connections for `duration` seconds, after a 1 s warm-up. With Debian's
 * `wrk` installed (C, one thread) it generates the load, so a 2-core machine measures the server rather than a
 * JavaScript load generator; otherwise autocannon does. The table says which. With `pid`, also answers `cpuUs`: the
 * CPU that process (with `tree`, and its children: nginx's workers) spent per request during the measured run.
 */
export async function measure(options) {
  const { pid, tree } = options;
  let cpu0 = 0;
  const beforeRun = () => (cpu0 = pid ? cpuSeconds(pid, tree) : 0);
  const result = hasWrk() ? await measureWrk(options, beforeRun) : await measureAutocannon(options, beforeRun);
  if (pid) result.cpuUs = ((cpuSeconds(pid, tree) - cpu0) * 1e6) / result.total;
  return result;
}

let wrkPresent;
export function hasWrk() {
  wrkPresent ??= spawnSync('sh', ['-c', 'command -v wrk'], { stdio: 'ignore' }).status === 0;
  return wrkPresent;
}

export const loadGenerator = () => (hasWrk() ? 'wrk' : 'autocannon');

function measureWrk({ url, method = 'GET', headers = {}, body, connections = 16, duration = 5 }, beforeRun) {
  const dir = mkdtempSync(path.join(tmpdir(), 'berth-wrk-'));
  const script = path.join(dir, 'request.lua');
  const lua = [`wrk.method = ${JSON.stringify(method)}`, ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)];
  if (body) lua.push(`wrk.body = ${JSON.stringify(body)}`);
  writeFileSync(script, lua.join('\n') + '\n');
  const run = (seconds) => spawnSync('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  run(1);
  beforeRun();
  const out = run(duration).stdout;
  rmSync(dir, { recursive: true, force: true });
  const number = (re) => Number(re.exec(out)?.[1] ?? NaN);
  const ms = (label) => {
    const m = new RegExp(`\\s${label}%\\s+([0-9.]+)(us|ms|s)`).exec(out);
    if (!m) return NaN;
    const v = Number(m[1]);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  const errors = number(/Non-2xx or 3xx responses: (\d+)/) || 0;
  const total = number(/(\d+) requests in/);
  return { rps: number(/Requests\/sec:\s+([0-9.]+)/), p50: ms('50'), p99: ms('99'), errors, total };
}

async function measureAutocannon({ url, method = 'GET', headers = {}, body, connections = 16, duration = 5 }, beforeRun) {
  await autocannon({ url, method, headers, body, connections, duration: 1 }); // warm-up
  beforeRun();
  const result = await autocannon({ url, method, headers, body, connections, duration, pipelining: 1 });
  const errors = result.errors + result.non2xx;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors, total: result.requests.total };
}

export function printTable(title, rows) {
  console.log(`\n${title}`);
  console.log('| case | req/s | p50 ms | p99 ms | vs baseline | errors |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const ratio = r.baseline ? (r.rps / r.baseline).toFixed(2) : '1.00';
    const fmt = (v) => (Number.isFinite(v) ? String(Math.round(v * 100) / 100) : '-');
    console.log(`| ${r.name} | ${Math.round(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${ratio} | ${r.errors} |`);
  }
}

/** One streamed request; resolves with the status, headers and how many response bytes arrived. */
export function send(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let bytes = 0;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) {
      body.on('error', reject);
      body.pipe(req);
    } else req.end();
  });
}
