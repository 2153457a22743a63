// Sessions on Slurm next to their baselines, in one run on a throwaway two-node cluster (scripts/slurm-cluster.mjs,
// nodes in their own network namespaces): `sbatch` → RUNNING as Slurm itself reports it, POST /session → RUNNING
// on the local backend and on a Slurm node, and the execution round trip and keystroke echo to a kernel on another
// node (TLS kernel channel) against a local one (Unix socket). Needs root (network namespaces) and slurm-wlm.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { freePort, loadClient, startServer } from './harness.mjs';
import { buildServer } from '../scripts/build.mjs';
import { startSlurmCluster } from '../scripts/slurm-cluster.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (process.getuid?.() !== 0 || spawnSync('sh', ['-c', 'command -v slurmctld'], { stdio: 'ignore' }).status !== 0) {
  console.log('skipped: the Slurm bench needs root and Debian\'s slurm-wlm (npm test installs it)');
  process.exit(0);
}
const { BerthClient, signRequest } = await loadClient(root);
const ACCESS_KEY = 'AKBENCH0000000000003';
const SECRET_KEY = 'benchSecretKey00000000000000000000000003';
const N = Number(process.env.BENCH_SESSIONS ?? 20);

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x) => x.toFixed(1);
const sleep = (t) => new Promise((r) => setTimeout(r, t));

/** sbatch of a job that sleeps, until squeue says RUNNING (polled every 10 ms), then scancel. */
async function sbatchToRunning(env) {
  const times = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const id = execFileSync('sbatch', ['--parsable', '--wrap', 'sleep 60', '-o', '/dev/null'], { env, encoding: 'utf8' }).trim().split(';')[0];
    while (execFileSync('squeue', ['--noheader', '-j', id, '-o', '%T'], { env, encoding: 'utf8' }).trim() !== 'RUNNING') await sleep(10);
    times.push(performance.now() - t);
    execFileSync('scancel', [id], { env });
    while (execFileSync('squeue', ['--noheader', '-j', id, '-o', '%T'], { env, encoding: 'utf8' }).trim()) await sleep(50);
  }
  return times;
}

async function sessionStarts(client, scalingGroup) {
  const times = [];
  for (let i = 0; i < N; i++) {
    const name = `bench-${scalingGroup}-${i}`;
    const t = performance.now();
    const res = await client.call('POST', '/session', { body: { name, image: 'shell', group: 'default', config: { scaling_group: scalingGroup } } });
    times.push(performance.now() - t);
    if (res.status !== 'RUNNING') throw new Error(`session ${name} is ${res.status}`);
    await client.call('DELETE', `/session/${name}`);
  }
  return times;
}

async function roundTrips(client, endpoint, scalingGroup) {
  const name = `bench-rt-${scalingGroup}`;
  await client.call('POST', '/session', { body: { name, image: 'python', group: 'default', config: { scaling_group: scalingGroup } } });
  const exec = [];
  for (let i = 0; i < N * 10; i++) {
    const t = performance.now();
    const { result } = await client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code: 'print(1)' } });
    exec.push(performance.now() - t);
    if (result.status !== 'finished') throw new Error(`run ended ${result.status}`);
  }
  const echo = await keystrokeEcho(endpoint, `/stream/session/${name}/pty`);
  await client.call('DELETE', `/session/${name}`);
  return { exec, echo };
}

/** One character typed into the terminal until the shell's echo of it comes back. */
async function keystrokeEcho(endpoint, uri) {
  const url = new URL(endpoint);
  const headers = signRequest({ method: 'GET', uri, host: url.host, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
  const ws = new WebSocket(`ws://${url.host}${uri}`, { headers });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let seen = '';
  let waiter = null;
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    if (frame.type !== 'out') return;
    seen += Buffer.from(frame.data, 'base64').toString();
    waiter?.();
  });
  const send = (text) => ws.send(JSON.stringify({ type: 'stdin', chars: Buffer.from(text).toString('base64') }));
  const until = (text) => new Promise((resolve) => { waiter = () => seen.includes(text) && resolve(); waiter(); });
  send('stty -icanon; PS1=""\n');
  await sleep(500);
  const times = [];
  for (let i = 0; i < N * 5; i++) {
    const ch = String.fromCharCode(97 + (i % 26));
    seen = '';
    const t = performance.now();
    send(ch);
    await until(ch);
    times.push(performance.now() - t);
  }
  ws.close();
  return times;
}

await buildServer();
const cluster = await startSlurmCluster();
const slurmEnv = { ...process.env, SLURM_CONF: cluster.conf };
const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-slurm-'));
const endpoint = `http://127.0.0.1:${port}`;
let berth = null;
try {
  const sbatch = await sbatchToRunning(slurmEnv);
  berth = await startServer(root, {
    BERTH_ROLES: 'manager', BERTH_MANAGER_PORT: String(port), BERTH_DATA_DIR: dataDir, BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY,
    BERTH_LOG_LEVEL: 'warn', BERTH_SLURM_CONF: cluster.conf,
  }, /Berth ready/);
  const client = new BerthClient({ endpoint, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
  const local = await sessionStarts(client, 'default');
  const slurm = await sessionStarts(client, 'slurm');
  const localRt = await roundTrips(client, endpoint, 'default');
  const slurmRt = await roundTrips(client, endpoint, 'slurm');
  client.close();
  console.log(`\nSession start on Slurm (${N} each, sequential; two nodes in network namespaces on this machine)`);
  console.log('| case | p50 ms | p95 ms |');
  console.log('|---|---:|---:|');
  console.log(`| sbatch --wrap → RUNNING in squeue (baseline) | ${ms(pct(sbatch, 50))} | ${ms(pct(sbatch, 95))} |`);
  console.log(`| POST /session → RUNNING, local backend | ${ms(pct(local, 50))} | ${ms(pct(local, 95))} |`);
  console.log(`| POST /session → RUNNING, Slurm node | ${ms(pct(slurm, 50))} | ${ms(pct(slurm, 95))} |`);
  console.log('\nKernel channel: local Unix socket vs TLS to a kernel on a Slurm node');
  console.log('| case | p50 ms | p99 ms |');
  console.log('|---|---:|---:|');
  console.log(`| execution round trip print(1), local | ${ms(pct(localRt.exec, 50))} | ${ms(pct(localRt.exec, 99))} |`);
  console.log(`| execution round trip print(1), Slurm node | ${ms(pct(slurmRt.exec, 50))} | ${ms(pct(slurmRt.exec, 99))} |`);
  console.log(`| keystroke echo over the pty stream, local | ${ms(pct(localRt.echo, 50))} | ${ms(pct(localRt.echo, 99))} |`);
  console.log(`| keystroke echo over the pty stream, Slurm node | ${ms(pct(slurmRt.echo, 50))} | ${ms(pct(slurmRt.echo, 99))} |`);
} finally {
  await berth?.stop();
  await cluster.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
