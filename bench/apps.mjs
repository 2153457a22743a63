// In-session apps and terminals (issue 4, performance), from one run:
// 1. start-service → add → auth → Jupyter's first 200 through the app proxy (shutdown-service between runs);
// 2. app proxy throughput and latency on two upstreams, the shell image's `echo` app (node:http: the proxy's own
//    cost, worst case) and Jupyter's /api/status (a real app), each direct, through Berth's app proxy and through
//    configurable-http-proxy 5.3 (npm), in interleaved rounds, with the CPU each serving process spent per request;
// 3. keystroke echo latency through the pty stream;
// 4. 10,000 WebSockets opened and closed through the app proxy (to the echo app) and 10,000 terminals through the
//    pty stream, with the manager's open fds and RSS before, right after and after a settle, and the session's side
//    (kernel runner fds and threads, login shells left).
//
// Berth runs as a child process (roles manager+apps), the load generator here; the apps run in real sessions,
// started through start-service, so routes, tokens and cookies are the real ones. Reads /proc (Linux). Knobs:
// BENCH_SECONDS (per load case, 5), BENCH_ROUNDS (5), BENCH_JUPYTER_RUNS (10), BENCH_WS (10000), BENCH_PTY (10000),
// BENCH_PTY_PER_SESSION (0: all terminals in one session), BENCH_KEYS (500).
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import autocannon from 'autocannon';
import { freePort, loadClient, startProcess } from './harness.mjs';
import { buildServer } from '../scripts/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { BerthClient, signRequest, buildQuery } = await loadClient(root);
const ACCESS_KEY = 'AKBENCH0000000000004';
const SECRET_KEY = 'benchSecretKey00000000000000000000000004';
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const JUPYTER_RUNS = Number(process.env.BENCH_JUPYTER_RUNS ?? 10);
const WS_COUNT = Number(process.env.BENCH_WS ?? 10_000);
const PTY_COUNT = Number(process.env.BENCH_PTY ?? 10_000);
const KEYS = Number(process.env.BENCH_KEYS ?? 500);
const PTY_PER_SESSION = Number(process.env.BENCH_PTY_PER_SESSION ?? 0);
/** Wall-clock bound for each open/close phase: the phase stops early (and says so) past it. */
const PHASE_LIMIT_MS = 5 * 60_000;
const SETTLE_MS = 5_000;
const CONNECTIONS = 16;
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

const pct = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (x) => x.toFixed(1);
const sleep = (t) => new Promise((r) => setTimeout(r, t));

/** GET without following redirects. */
function get(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}

/** start-service → add → auth, as a browser would: the app's base URL and the route cookie. */
async function openApp(client, session, sessionId, appName) {
  const started = await client.call('POST', `/session/${session}/start-service`, { body: { app: appName } });
  const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=${appName}`)).body);
  const auth = await get(added.url);
  if (auth.status !== 302) throw new Error(`auth answered ${auth.status}: ${auth.body}`);
  const cookie = String(auth.headers['set-cookie'][0]).split(';')[0];
  const base = auth.headers.location;
  return { cookie, base, routeId: /\/app\/([0-9a-f]+)\//.exec(base)[1] };
}

/**
 * The upstream's process and host port, read from its command line: an app is told its base path and its port (the
 * echo app as `<port> <base>`, Jupyter as `--port=<port> --NotebookApp.base_url=<base>`).
 */
function upstreamOf(routeId) {
  const basePath = `/app/${routeId}/`;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let argv;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = argv.findIndex((a) => a === basePath || a.endsWith(`=${basePath}`));
    if (at < 0) continue;
    const flag = argv.find((a) => a.startsWith('--port='));
    return { pid: Number(pid), port: Number(flag ? flag.slice('--port='.length) : argv[at - 1]) };
  }
  throw new Error(`no process serves ${basePath}`);
}

/** User + system CPU seconds a process has used. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** One load case: a warm-up second, then `DURATION` s with autocannon, and the CPU the serving process spent. */
async function load({ url, headers, pid }) {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 1 });
  const cpu0 = cpuSeconds(pid);
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
  const cpu = cpuSeconds(pid) - cpu0;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx, cpuUs: (cpu * 1e6) / result.requests.total };
}

function waitForPort(port, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const req = http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
        res.resume();
        resolve();
      });
      req.on('error', () => (Date.now() > deadline ? reject(new Error(`nothing listens on ${port}`)) : setTimeout(attempt, 100)));
    };
    attempt();
  });
}

function usage(pid) {
  const fds = readdirSync(`/proc/${pid}/fd`).length;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  return { fds, rss };
}

/** The processes of one session (their environment names it), from /proc. */
function sessionProcesses(sessionId) {
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`BERTH_SESSION_ID=${sessionId}`)) continue;
      found.push({ pid, argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** The session side of its terminals: the kernel runner's open fds and threads, and the login shells alive. */
function sessionSide(sessionId) {
  const procs = sessionProcesses(sessionId);
  const runner = procs.find((p) => p.argv.some((a) => a.endsWith('kernel_runner.py')));
  const count = (pid, what) => {
    try {
      return what === 'fds' ? readdirSync(`/proc/${pid}/fd`).length : Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    } catch {
      return NaN;
    }
  };
  return {
    runnerFds: runner ? count(runner.pid, 'fds') : NaN,
    runnerThreads: runner ? count(runner.pid, 'threads') : NaN,
    shells: procs.filter((p) => p.argv.join(' ') === 'bash -l').length,
  };
}

/** Runs `count` tasks, `concurrency` at a time, until done or the time limit; answers how many ran and failed. */
async function pool(count, concurrency, task) {
  const deadline = Date.now() + PHASE_LIMIT_MS;
  let next = 0;
  let failed = 0;
  let firstError = null;
  let firstFailure = null;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && Date.now() < deadline) {
        const i = next++;
        try {
          await task(i);
        } catch (err) {
          failed++;
          if (!firstError) {
            firstError = err;
            firstFailure = i;
          }
        }
      }
    }),
  );
  return { done: next, failed, seconds: (performance.now() - started) / 1000, firstError, firstFailure };
}

/** Opens one WebSocket, sends a frame, waits for the matching one, closes and waits for the close. */
function wsRoundTrip(url, headers, frame, isReply) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    let replied = false;
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('no reply in 30 s'));
    }, 30_000);
    ws.once('open', () => ws.send(frame));
    ws.on('message', (data) => {
      if (!replied && isReply(data)) {
        replied = true;
        ws.close(1000);
      }
    });
    ws.once('close', (code, reason) => {
      clearTimeout(timer);
      if (replied) resolve();
      else reject(new Error(`closed (${code} ${reason}) before the reply`));
    });
    ws.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      ws.terminate();
      reject(new Error(`upgrade refused: ${res.statusCode}`));
    });
    ws.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function ptyUrl(host, session, extra = {}) {
  const uri = `/stream/session/${session}/pty${buildQuery(extra)}`;
  return { url: `ws://${host}${uri}`, headers: signRequest({ method: 'GET', uri, host, accessKey: ACCESS_KEY, secretKey: SECRET_KEY }) };
}

/** Types `KEYS` characters one at a time into a new terminal and answers each one's echo time in ms. */
async function keystrokes(session) {
  const { url, headers } = ptyUrl(host, session);
  const term = new WebSocket(url, { headers, perMessageDeflate: false });
  let waiter = null;
  term.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    if (frame.type === 'error') waiter?.reject(new Error(`terminal error: ${frame.data}`));
    else if (frame.type === 'out' && waiter?.matches(Buffer.from(frame.data, 'base64').toString())) waiter.resolve(performance.now());
  });
  term.on('close', (code) => waiter?.reject(new Error(`terminal closed (${code})`)));
  const next = (matches, what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: nothing in 5 s`)), 5_000);
      const done = (fn) => (value) => {
        clearTimeout(timer);
        waiter = null;
        fn(value);
      };
      waiter = { matches, resolve: done(resolve), reject: done(reject) };
    });
  const prompt = next(() => true, 'prompt');
  await new Promise((resolve, reject) => {
    term.once('open', resolve);
    term.once('error', reject);
  });
  try {
    term.send(JSON.stringify({ type: 'resize', rows: 40, cols: 250 }));
    await prompt;
    await sleep(500); // the rest of the prompt and the resize's redraw
    const times = [];
    for (let i = 0; i < KEYS; i++) {
      if (i > 0 && i % 100 === 0) {
        term.send(JSON.stringify({ type: 'stdin', chars: Buffer.from('\x15').toString('base64') })); // ^U clears the line
        await sleep(200);
      }
      const char = 'abcdefghijklmnopqrstuvwxyz'[i % 26];
      const echoed = next((text) => text.includes(char), `keystroke ${i}`);
      const t0 = performance.now();
      term.send(JSON.stringify({ type: 'stdin', chars: Buffer.from(char).toString('base64') }));
      times.push((await echoed) - t0);
    }
    return times;
  } finally {
    term.close();
  }
}

async function socketChurn(label, pid, count, concurrency, task) {
  const before = usage(pid);
  const run = await pool(count, concurrency, task);
  const after = usage(pid);
  await sleep(SETTLE_MS);
  const settled = usage(pid);
  return { label, before, after, settled, ...run };
}

// ---------------------------------------------------------------------------------------------------------------

await buildServer();
const managerPort = await freePort();
const appPort = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-'));
const berth = await startProcess([path.join(root, 'dist/server.mjs')], {
  BERTH_ROLES: 'manager,apps', BERTH_MANAGER_PORT: String(managerPort), BERTH_APP_PORT: String(appPort), BERTH_DATA_DIR: dataDir,
  BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY, BERTH_LOG_LEVEL: 'warn',
}, /Berth ready/);
const managerPid = berth.child.pid;
const host = `127.0.0.1:${managerPort}`;
const client = new BerthClient({ endpoint: `http://${host}`, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
const sessions = [];
let chp = null;

try {
  // 10,000 terminals exceed the bootstrap keypair's request budget: lift it, as bench/api.mjs does.
  const lifted = await client.call('POST', '/admin/gql', { body: { query: `mutation { modify_keypair(access_key: "${ACCESS_KEY}", props: {rate_limit: null}) { ok msg } }` } });
  if (!lifted.data?.modify_keypair?.ok) throw new Error(`could not lift the rate limit: ${JSON.stringify(lifted)}`);

  // 1. start-service → Jupyter's first 200 through the proxy, shutdown-service between runs.
  const jupyterId = (await client.call('POST', '/session', { body: { name: 'bench-jupyter', image: 'python', group: 'default' } })).sessionId;
  sessions.push('bench-jupyter');
  const startToFirst = [];
  const startServiceOnly = [];
  for (let run = 0; run < JUPYTER_RUNS; run++) {
    const t0 = performance.now();
    const started = await client.call('POST', '/session/bench-jupyter/start-service', { body: { app: 'jupyter' } });
    startServiceOnly.push(performance.now() - t0);
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${jupyterId}/add?app=jupyter`)).body);
    const auth = await get(added.url);
    const cookie = String(auth.headers['set-cookie'][0]).split(';')[0];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await get(`${auth.headers.location}api/status`, { Cookie: cookie });
      if (answer.status === 200) break;
      if (Date.now() > deadline) throw new Error(`Jupyter never answered 200 (last ${answer.status})`);
      await sleep(20);
    }
    startToFirst.push(performance.now() - t0);
    await client.call('POST', '/session/bench-jupyter/shutdown-service', { body: { service_name: 'jupyter' } });
  }
  console.log([
    `\nJupyter: start-service → first 200 through the app proxy (${JUPYTER_RUNS} runs, shutdown-service between)`,
    '| step | p50 ms | p95 ms |',
    '|---|---:|---:|',
    `| POST start-service (returns once the app listens) | ${ms(pct(startServiceOnly, 50))} | ${ms(pct(startServiceOnly, 95))} |`,
    `| start-service → add → auth → first 200 of /api/status | ${ms(pct(startToFirst, 50))} | ${ms(pct(startToFirst, 95))} |`,
  ].join('\n'));

  // 2. Proxy throughput: each upstream direct, through Berth's app proxy and through configurable-http-proxy (its
  // REST API given the same two routes, as JupyterHub does), in interleaved rounds; medians are printed.
  const echoId = (await client.call('POST', '/session', { body: { name: 'bench-echo', image: 'shell', group: 'default' } })).sessionId;
  sessions.push('bench-echo');
  const echo = await openApp(client, 'bench-echo', echoId, 'echo');
  const jupyter = await openApp(client, 'bench-jupyter', jupyterId, 'jupyter');
  const upstreams = [
    { name: 'echo app (node:http)', app: echo, path: `/app/${echo.routeId}/` },
    { name: 'Jupyter /api/status', app: jupyter, path: `/app/${jupyter.routeId}/api/status` },
  ];
  const chpPort = await freePort();
  const chpApiPort = await freePort();
  const chpToken = randomBytes(16).toString('hex');
  chp = spawn(process.execPath, [
    path.join(root, 'node_modules/configurable-http-proxy/bin/configurable-http-proxy'),
    '--ip', '127.0.0.1', '--port', String(chpPort), '--api-ip', '127.0.0.1', '--api-port', String(chpApiPort), '--log-level', 'warn',
  ], { env: { ...process.env, CONFIGPROXY_AUTH_TOKEN: chpToken }, stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForPort(chpApiPort);
  for (const u of upstreams) {
    u.process = upstreamOf(u.app.routeId);
    const answer = await fetch(`http://127.0.0.1:${chpApiPort}/api/routes/app/${u.app.routeId}`, {
      method: 'POST', headers: { Authorization: `token ${chpToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ target: `http://127.0.0.1:${u.process.port}` }),
    });
    if (answer.status !== 201) throw new Error(`CHP refused the route: ${answer.status}`);
  }
  const cases = upstreams.flatMap((u) => [
    { upstream: u, name: 'direct to the upstream', url: `http://127.0.0.1:${u.process.port}${u.path}`, headers: {}, pid: u.process.pid, runs: [] },
    { upstream: u, name: "Berth's app proxy", url: `http://127.0.0.1:${appPort}${u.path}`, headers: { Cookie: u.app.cookie }, pid: managerPid, runs: [] },
    { upstream: u, name: 'configurable-http-proxy 5.3', url: `http://127.0.0.1:${chpPort}${u.path}`, headers: {}, pid: chp.pid, runs: [] },
  ]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) c.runs.push(await load(c));
  }
  const median = (runs, key) => pct(runs.map((r) => r[key]), 50);
  for (const u of upstreams) {
    const rows = cases.filter((c) => c.upstream === u);
    const direct = median(rows[0].runs, 'rps');
    console.log(`\nApp proxy: GET ${u.path.replace(/[0-9a-f]{24}/, '<route>')} on the ${u.name}: ${ROUNDS} interleaved rounds of ${DURATION} s, medians; ${CONNECTIONS} keep-alive connections`);
    console.log('| case | req/s | p50 ms | p99 ms | vs direct | CPU µs per request (upstream for direct, else the proxy process) | errors | req/s per round |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---|');
    for (const c of rows) {
      const rps = median(c.runs, 'rps');
      console.log(`| ${c.name} | ${Math.round(rps)} | ${median(c.runs, 'p50')} | ${median(c.runs, 'p99')} | ${(rps / direct).toFixed(2)} | ${median(c.runs, 'cpuUs').toFixed(0)} | ${c.runs.reduce((n, r) => n + r.errors, 0)} | ${c.runs.map((r) => Math.round(r.rps)).join(' / ')} |`);
    }
    // Rounds are interleaved, so round-by-round ratios cancel most of the drift of a shared machine.
    const paired = (a, b, key) => pct(a.runs.map((r, i) => r[key] / b.runs[i][key]), 50).toFixed(2);
    console.log(`Median of the per-round ratios: Berth / direct ${paired(rows[1], rows[0], 'rps')}, CHP / direct ${paired(rows[2], rows[0], 'rps')}, Berth / CHP req/s ${paired(rows[1], rows[2], 'rps')}, Berth / CHP CPU per request ${paired(rows[1], rows[2], 'cpuUs')} (targets: ≥ 0.80 of direct, ≥ 1.00 of CHP's req/s)`);
  }
  await new Promise((resolve) => {
    chp.once('exit', resolve);
    chp.kill('SIGTERM');
  });
  chp = null;
  await client.call('DELETE', '/session/bench-jupyter');
  sessions.splice(sessions.indexOf('bench-jupyter'), 1);
  const appPath = upstreams[0].path;

  // 3. Keystroke echo on a fresh terminal: one character at a time, timed until the terminal echoes it.
  const echoes = await keystrokes('bench-echo');
  console.log(`\nKeystroke echo through the pty stream (${KEYS} keystrokes, one at a time): p50 ${ms(pct(echoes, 50))} ms, p99 ${ms(pct(echoes, 99))} ms, max ${ms(Math.max(...echoes))} ms`);

  // 4. 10,000 WebSockets through the app proxy, then 10,000 terminals through the pty stream of a fresh session.
  const wsUrl = `ws://127.0.0.1:${appPort}${appPath}ws`;
  const viaProxy = await socketChurn('app proxy → echo app', managerPid, WS_COUNT, 32, (i) =>
    wsRoundTrip(wsUrl, { Cookie: echo.cookie }, `hello ${i}`, (data) => data.toString() === `hello ${i}`),
  );
  // Terminals go to one fresh session, or with BENCH_PTY_PER_SESSION=n to a new session every n terminals (each
  // ended once its terminals are done), to measure the manager's side apart from one kernel runner's lifetime.
  const perSession = PTY_PER_SESSION > 0 ? PTY_PER_SESSION : PTY_COUNT;
  const ptySessions = new Map();
  const ptySession = (k) => {
    if (!ptySessions.has(k)) {
      const name = `bench-pty-${k}`;
      sessions.push(name);
      ptySessions.set(k, { name, left: Math.min(perSession, PTY_COUNT - k * perSession), side: null, id: client.call('POST', '/session', { body: { name, image: 'shell', group: 'default' } }).then((r) => r.sessionId) });
    }
    return ptySessions.get(k);
  };
  const sideBefore = sessionSide(await ptySession(0).id);
  const viaPty = await socketChurn('pty stream (a bash -l each)', managerPid, PTY_COUNT, 8, async (i) => {
    const target = ptySession(Math.floor(i / perSession));
    await target.id;
    const { url, headers } = ptyUrl(host, target.name);
    try {
      // A terminal counts as opened once its shell has written something (the prompt).
      await wsRoundTrip(url, headers, JSON.stringify({ type: 'ping' }), (data) => JSON.parse(data.toString()).type === 'out');
    } finally {
      if (--target.left === 0 && perSession < PTY_COUNT) {
        await sleep(1000);
        target.side = sessionSide(await target.id);
        await client.call('DELETE', `/session/${target.name}`);
        sessions.splice(sessions.indexOf(target.name), 1);
      }
    }
  });
  const sides = perSession < PTY_COUNT ? [...ptySessions.values()].map((t) => t.side).filter(Boolean) : [sessionSide(await ptySession(0).id)];
  const sideAfter = { runnerFds: Math.max(...sides.map((x) => x.runnerFds)), runnerThreads: Math.max(...sides.map((x) => x.runnerThreads)), shells: sides.reduce((n, x) => n + x.shells, 0) };
  const churn = [viaProxy, viaPty];
  const lines = [
    `\nWebSockets opened and closed, ${'`'}failed${'`'} = no reply (an echoed frame; a terminal's first output); the manager's open fds and RSS before, right after, and after ${SETTLE_MS / 1000} s`,
    '| path | sockets | failed | s | fds before | fds after | fds settled | RSS MiB before | after | settled |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...churn.map((c) => `| ${c.label} | ${c.done} | ${c.failed} | ${c.seconds.toFixed(1)} | ${c.before.fds} | ${c.after.fds} | ${c.settled.fds} | ${c.before.rss.toFixed(0)} | ${c.after.rss.toFixed(0)} | ${c.settled.rss.toFixed(0)} |`),
    perSession < PTY_COUNT
      ? `The pty sessions' side (${ptySessions.size} sessions of ≤ ${perSession} terminals, each read 1 s after its last terminal): kernel runner fds ${sideBefore.runnerFds} → at most ${sideAfter.runnerFds}, runner threads ${sideBefore.runnerThreads} → at most ${sideAfter.runnerThreads}, login shells left alive in all: ${sideAfter.shells}`
      : `The pty session's side, before → after the phase (+${SETTLE_MS / 1000} s): kernel runner fds ${sideBefore.runnerFds} → ${sideAfter.runnerFds}, runner threads ${sideBefore.runnerThreads} → ${sideAfter.runnerThreads}, login shells alive ${sideBefore.shells} → ${sideAfter.shells}`,
  ];
  for (const c of churn) {
    if (c.done < (c === viaProxy ? WS_COUNT : PTY_COUNT)) lines.push(`${c.label}: stopped by the ${PHASE_LIMIT_MS / 60_000} min limit at ${c.done}`);
    if (c.firstError) lines.push(`${c.label}: first failure at socket ${c.firstFailure}: ${c.firstError.message}`);
  }
  console.log(lines.join('\n'));
} finally {
  if (chp) {
    await new Promise((resolve) => {
      chp.once('exit', resolve);
      chp.kill('SIGTERM');
    });
  }
  // Sessions outlive the manager by design; a bench's must not.
  for (const name of sessions) await client.request('DELETE', `/session/${name}`).catch(() => undefined);
  client.close();
  await berth.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
