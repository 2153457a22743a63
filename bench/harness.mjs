// Shared bench plumbing: start a process and wait for its ready line, measure with autocannon, print a table.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import path from 'node:path';

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

/** Runs one load: `connections` keep-alive connections for `duration` seconds. */
export async function measure({ url, method = 'GET', headers = {}, body, connections = 16, duration = 5 }) {
  await autocannon({ url, method, headers, body, connections, duration: 1 }); // warm-up
  const result = await autocannon({ url, method, headers, body, connections, duration, pipelining: 1 });
  const errors = result.errors + result.non2xx;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors };
}

export function printTable(title, rows) {
  console.log(`\n${title}`);
  console.log('| case | req/s | p50 ms | p99 ms | vs baseline | errors |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const ratio = r.baseline ? (r.rps / r.baseline).toFixed(2) : '1.00';
    console.log(`| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${ratio} | ${r.errors} |`);
  }
}
