// SSH into a session (issue 13), in one run: scp of 256 MiB into the session through `berth app … sshd` (a local
// port → the signed tcpproxy WebSocket → the manager → the sandbox's sshd) against the same scp straight to the
// sshd's port on this machine, and one keystroke's round trip over ssh through the forward (p50, p99).
// Needs Debian's openssh-server/-client (npm start / npm test install them).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { freePort, startProcess, startServer } from './harness.mjs';
import { buildServer } from '../scripts/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (spawnSync('sh', ['-c', 'command -v scp && test -x /usr/sbin/sshd'], { stdio: 'ignore' }).status !== 0) {
  console.log('skipped: the SSH bench needs openssh-server and openssh-client');
  process.exit(0);
}
const ACCESS_KEY = 'AKBENCH0000000000013';
const SECRET_KEY = 'benchSecretKey00000000000000000000000013';
const MIB = Number(process.env.BENCH_SCP_MIB ?? 256);
const ROUNDS = Number(process.env.BENCH_SCP_ROUNDS ?? 3);
const KEYSTROKES = Number(process.env.BENCH_KEYSTROKES ?? 300);
const SESSION = 'bench-ssh';

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const median = (xs) => pct(xs, 50);

function run(file, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${file} ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

const work = mkdtempSync(path.join(tmpdir(), 'berth-bench-ssh-'));
const dataDir = path.join(work, 'data');
const keyDir = path.join(work, 'keys');
let berth;
let forward;
try {
  await buildServer();
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  berth = await startServer(root, {
    BERTH_ROLES: 'manager', BERTH_MANAGER_PORT: String(port), BERTH_DATA_DIR: dataDir, BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY, BERTH_LOG_LEVEL: 'warn',
  });
  const cliEnv = { BERTH_ENDPOINT: endpoint, BERTH_ACCESS_KEY: ACCESS_KEY, BERTH_SECRET_KEY: SECRET_KEY, BERTH_KEY_DIR: keyDir };
  const cli = (args) => run(process.execPath, [path.join(root, 'dist/cli.mjs'), ...args], cliEnv);
  await cli(['session', 'create', SESSION, '--image', 'shell']);
  // Fetches the session key (and host key) and starts sshd.
  await cli(['ssh', SESSION, '--', 'true']);
  forward = await startProcess([path.join(root, 'dist/cli.mjs'), 'app', SESSION, 'sshd', '--bind', '127.0.0.1:0'], cliEnv, /Forwarding 127\.0\.0\.1:\d+/);
  const forwardPort = Number(/Forwarding 127\.0\.0\.1:(\d+)/.exec(forward.output())[1]);
  const key = path.join(keyDir, `${SESSION}.key`);
  const opts = ['-i', key, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', '-o', 'Compression=no'];
  const ssh = (p, ...args) => run('ssh', ['-p', String(p), ...opts, 'work@127.0.0.1', ...args]);
  // sshd's own port (the app's host port): the listener's command line inside the session names it.
  const listener = await ssh(forwardPort, 'ps', '-o', 'args=', '-C', 'sshd');
  const directPort = Number(/ -p (\d+)/.exec(listener)?.[1]);
  if (!directPort) throw new Error(`no sshd port in: ${listener}`);

  const file = path.join(work, 'payload.bin');
  const chunk = randomBytes(1024 * 1024);
  writeFileSync(file, Buffer.concat(Array.from({ length: MIB }, () => chunk)));
  const scp = async (p) => {
    const t = performance.now();
    await run('scp', ['-P', String(p), ...opts, file, 'work@127.0.0.1:payload.bin']);
    const seconds = (performance.now() - t) / 1000;
    await ssh(p, 'rm', '-f', 'payload.bin');
    return MIB / seconds;
  };
  const viaForward = [];
  const direct = [];
  await scp(directPort); // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    direct.push(await scp(directPort));
    viaForward.push(await scp(forwardPort));
  }

  // One byte to `cat` in the session and back, through the forward, KEYSTROKES times on one ssh connection.
  const child = spawn('ssh', ['-p', String(forwardPort), ...opts, 'work@127.0.0.1', 'cat'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const rtt = [];
  let waiting = null;
  child.stdout.on('data', () => waiting?.());
  child.stdin.write('x');
  await new Promise((r) => (waiting = r)); // the connection is up
  for (let i = 0; i < KEYSTROKES; i++) {
    const t = performance.now();
    await new Promise((r) => {
      waiting = r;
      child.stdin.write('k');
    });
    rtt.push(performance.now() - t);
  }
  child.stdin.end();

  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`\nSSH into a session — ${MIB} MiB scp, ${ROUNDS} rounds each (median), ${KEYSTROKES} keystrokes; load average ${load}\n`);
  console.log('| path | scp MiB/s (median) | all rounds |');
  console.log('|---|---|---|');
  console.log(`| straight to the sandbox's sshd port | ${median(direct).toFixed(1)} | ${direct.map((x) => x.toFixed(1)).join(', ')} |`);
  console.log(`| through \`berth app … sshd\` (tcpproxy) | ${median(viaForward).toFixed(1)} | ${viaForward.map((x) => x.toFixed(1)).join(', ')} |`);
  console.log(`\nratio forward/direct: ${(median(viaForward) / median(direct)).toFixed(2)} (target ≥ 0.7)`);
  console.log(`keystroke round trip over ssh through the forward: p50 ${pct(rtt, 50).toFixed(2)} ms, p99 ${pct(rtt, 99).toFixed(2)} ms`);
  await cli(['session', 'destroy', SESSION]);
} finally {
  await forward?.stop().catch(() => undefined);
  await berth?.stop().catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
}
