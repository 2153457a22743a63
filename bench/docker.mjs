// Sessions in containers next to their baselines, in one run on a private Docker engine (scripts/docker-engine.mjs):
// a bare `docker run --rm IMAGE true` through dockerode on the same engine, POST /session → RUNNING on the local
// backend and on the docker backend, and the execution round trip and keystroke echo in a container against the
// local sandbox; then the same engine as a remote one (tcp://127.0.0.1 with TLS client certificates, a second Berth
// process that knows it only so), where the channel is an exec through the Engine API. Needs root and Debian's
// docker.io (npm test installs it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import WebSocket from 'ws';
import { freePort, loadClient, startServer } from './harness.mjs';
import { buildServer } from '../scripts/build.mjs';
import { startDockerEngine } from '../scripts/docker-engine.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (process.getuid?.() !== 0 || spawnSync('sh', ['-c', 'command -v dockerd'], { stdio: 'ignore' }).status !== 0) {
  console.log('skipped: the Docker bench needs root and Debian\'s docker.io (npm test installs it)');
  process.exit(0);
}
const { BerthClient, signRequest } = await loadClient(root);
const ACCESS_KEY = 'AKBENCH0000000000004';
const SECRET_KEY = 'benchSecretKey00000000000000000000000004';
const N = Number(process.env.BENCH_SESSIONS ?? 20);
const PACE_MS = 250;

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x) => x.toFixed(1);
const sleep = (t) => new Promise((r) => setTimeout(r, t));

/** `docker run --rm IMAGE true` as the Engine API does it: create, start, wait, remove. */
async function bareRuns(docker, image) {
  const times = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const container = await docker.createContainer({ Image: image, Cmd: ['true'], HostConfig: { NetworkMode: 'none', AutoRemove: true } });
    await container.start();
    await container.wait({ condition: 'removed' }).catch(() => undefined);
    times.push(performance.now() - t);
  }
  return times;
}

async function sessionStarts(client, scalingGroup, image) {
  const times = [];
  for (let i = 0; i < N; i++) {
    const name = `bench-${scalingGroup}-${i}`;
    const t = performance.now();
    const res = await client.call('POST', '/session', { body: { name, image, group: 'default', config: { scaling_group: scalingGroup } } });
    times.push(performance.now() - t);
    if (res.status !== 'RUNNING') throw new Error(`session ${name} is ${res.status}`);
    await client.call('DELETE', `/session/${name}`);
  }
  return times;
}

async function roundTrips(client, endpoint, scalingGroup, image) {
  const name = `bench-rt-${scalingGroup}`;
  await client.call('POST', '/session', { body: { name, image, group: 'default', config: { scaling_group: scalingGroup } } });
  const exec = [];
  for (let i = 0; i < N * 10; i++) {
    const t = performance.now();
    const { result } = await client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code: 'print(1)' } });
    exec.push(performance.now() - t);
    if (result.status !== 'finished') throw new Error(`run ended ${result.status}`);
  }
  // Paced like a person running cells (a pause between runs): on a tcp engine the channel's bridge for the next run
  // is then already started, where back to back each run waits for one.
  const paced = [];
  for (let i = 0; i < N * 2; i++) {
    await sleep(PACE_MS);
    const t = performance.now();
    await client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code: 'print(1)' } });
    paced.push(performance.now() - t);
  }
  const echo = await keystrokeEcho(endpoint, `/stream/session/${name}/pty`);
  await client.call('DELETE', `/session/${name}`);
  return { exec, paced, echo };
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

/** A Berth process with `env` for the time of `run(client, endpoint)`, on a data directory of its own. */
async function withBerth(env, run) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-docker-'));
  const endpoint = `http://127.0.0.1:${port}`;
  let berth = null;
  try {
    berth = await startServer(root, {
      BERTH_ROLES: 'manager', BERTH_MANAGER_PORT: String(port), BERTH_DATA_DIR: dataDir, BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY,
      BERTH_LOG_LEVEL: 'warn', ...env,
    }, /Berth ready/);
    const client = new BerthClient({ endpoint, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
    try {
      return await run(client, endpoint);
    } finally {
      client.close();
    }
  } finally {
    await berth?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await buildServer();
const engine = await startDockerEngine();
const docker = new Docker({ socketPath: engine.socket });
try {
  const bare = await bareRuns(docker, engine.images.python);
  const { local, inDocker, localRt, dockerRt } = await withBerth({ BERTH_DOCKER_HOSTS: engine.host }, async (client, endpoint) => ({
    local: await sessionStarts(client, 'default', 'python'),
    inDocker: await sessionStarts(client, 'docker', engine.images.python),
    localRt: await roundTrips(client, endpoint, 'default', 'python'),
    dockerRt: await roundTrips(client, endpoint, 'docker', engine.images.python),
  }));
  const { overTcp, tcpRt } = await withBerth({ BERTH_DOCKER_HOSTS: engine.tcpHost, BERTH_DOCKER_TLS_DIR: engine.tlsDir }, async (client, endpoint) => ({
    overTcp: await sessionStarts(client, 'docker', engine.images.python),
    tcpRt: await roundTrips(client, endpoint, 'docker', engine.images.python),
  }));
  console.log(`\nSession start in containers (${N} each, sequential; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  console.log('| case | p50 ms | p95 ms |');
  console.log('|---|---:|---:|');
  console.log(`| docker run --rm ${engine.images.python} true, through dockerode (baseline) | ${ms(pct(bare, 50))} | ${ms(pct(bare, 95))} |`);
  console.log(`| POST /session → RUNNING, local backend | ${ms(pct(local, 50))} | ${ms(pct(local, 95))} |`);
  console.log(`| POST /session → RUNNING, docker backend | ${ms(pct(inDocker, 50))} | ${ms(pct(inDocker, 95))} |`);
  console.log(`| POST /session → RUNNING, docker backend, the engine as tcp:// + TLS (exec channel) | ${ms(pct(overTcp, 50))} | ${ms(pct(overTcp, 95))} |`);
  console.log('\nKernel channel: local sandbox vs container (both Unix sockets) vs container on a tcp:// engine (an exec per operation)');
  console.log('| case | p50 ms | p99 ms |');
  console.log('|---|---:|---:|');
  console.log(`| execution round trip print(1), local | ${ms(pct(localRt.exec, 50))} | ${ms(pct(localRt.exec, 99))} |`);
  console.log(`| execution round trip print(1), container | ${ms(pct(dockerRt.exec, 50))} | ${ms(pct(dockerRt.exec, 99))} |`);
  console.log(`| execution round trip print(1), container on the tcp:// engine | ${ms(pct(tcpRt.exec, 50))} | ${ms(pct(tcpRt.exec, 99))} |`);
  console.log(`| the same, ${PACE_MS} ms between runs, local | ${ms(pct(localRt.paced, 50))} | ${ms(pct(localRt.paced, 99))} |`);
  console.log(`| the same, ${PACE_MS} ms between runs, container | ${ms(pct(dockerRt.paced, 50))} | ${ms(pct(dockerRt.paced, 99))} |`);
  console.log(`| the same, ${PACE_MS} ms between runs, container on the tcp:// engine | ${ms(pct(tcpRt.paced, 50))} | ${ms(pct(tcpRt.paced, 99))} |`);
  console.log(`| keystroke echo over the pty stream, local | ${ms(pct(localRt.echo, 50))} | ${ms(pct(localRt.echo, 99))} |`);
  console.log(`| keystroke echo over the pty stream, container | ${ms(pct(dockerRt.echo, 50))} | ${ms(pct(dockerRt.echo, 99))} |`);
  console.log(`| keystroke echo over the pty stream, container on the tcp:// engine | ${ms(pct(tcpRt.echo, 50))} | ${ms(pct(tcpRt.echo, 99))} |`);
} finally {
  await engine.stop();
}
