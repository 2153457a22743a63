// In-session apps and terminals (issue 4, performance), from one run:
// 1. start-service → add → auth → Jupyter's first 200 through the app proxy (shutdown-service between runs);
// 2. app proxy throughput and latency on three upstreams, the shell image's `echo` app (node:http: the proxy's own
//    cost, worst case), Jupyter's /api/status (a real app) and a model service's endpoint (a node:http model
//    server behind /service/<endpoint>, bearer token), each direct, through Berth's app proxy, through Debian's
//    nginx (1 worker process, keep-alive upstream; installed by the `bench` purpose of scripts/system-deps.mjs) and
//    through configurable-http-proxy 5.3 (npm), in interleaved rounds, with the CPU each serving process spent per
//    request (wrk generates the load when installed, as bench/harness.mjs says);
// 3. keystroke echo latency through the pty stream;
// 4. 10,000 WebSockets opened and closed through the app proxy (to the echo app) and 10,000 terminals through the
//    pty stream, with the manager's open fds and RSS before, right after and after a settle, and the session's side
//    (kernel runner fds and threads, login shells left).
//
// Berth runs as a child process (roles manager+apps), the load generator here; the apps run in real sessions,
// started through start-service, so routes, tokens and cookies are the real ones. Reads /proc (Linux). Knobs:
// BENCH_SECONDS (per load case, 5), BENCH_ROUNDS (5), BENCH_JUPYTER_RUNS (10), BENCH_WS (10000), BENCH_PTY (10000),
// BENCH_PTY_PER_SESSION (0: all terminals in one session), BENCH_KEYS (500), BENCH_PARTS (jupyter,service,keys,churn:
// the parts to run besides the echo app's throughput), BENCH_CPU_PROF (a directory: Berth runs with --cpu-prof into it).
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { benchNodeArgs, freePort, loadClient, loadGenerator, measure, startServer } from './harness.mjs';
import { ensurePackages } from '../scripts/system-deps.mjs';
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
/** Which parts run: all by default; e.g. BENCH_PARTS=service for the proxy throughput on the echo app and a model service only. */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'jupyter,service,keys,churn').split(','));
/** Wall-clock bound for each open/close phase: the phase stops early (and says so) past it. */
const PHASE_LIMIT_MS = 5 * 60_000;
const SETTLE_MS = 5_000;
const CONNECTIONS = 16;

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
  // The runner runs from its bytecode once the local agent has compiled it (agents/sandbox/runner-bytecode.ts).
  const runner = procs.find((p) => p.argv.some((a) => /kernel_runner\.pyc?$/.test(a)));
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

/** The model server of the bench's model service: node:http answering `<method> <path>` on `$PORT`, /health too. */
const MODEL_SERVER_JS = `require('node:http').createServer((req, res) => {
  const body = req.method + ' ' + req.url + '\\n';
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.argv[2]), '127.0.0.1');
`;
const MODEL_DEFINITION = `models:
  - name: echo
    service:
      start_command: ["${process.execPath.startsWith('/usr/') ? process.execPath : '/usr/bin/node'}", "/home/work/model/server.js", "{port}"]
      health_check:
        path: /health
        expected_status_code: 200
`;

async function uploadText(client, folder, file, content) {
  const bytes = Buffer.from(content);
  const { token, url } = await client.call('POST', `/folders/${folder}/request-upload`, { body: { path: file, size: bytes.length } });
  const res = await fetch(`${url}?token=${encodeURIComponent(token)}`, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0' }, body: bytes });
  if (res.status !== 204) throw new Error(`upload of ${file} answered ${res.status}: ${await res.text()}`);
}

/** A model service of one replica on the echo model server, with a token: the upstream of its endpoint path. */
async function openModelService(client) {
  await client.call('POST', '/folders', { body: { name: 'bench-model', usage_mode: 'model' } });
  await uploadText(client, 'bench-model', 'server.js', MODEL_SERVER_JS);
  await uploadText(client, 'bench-model', 'model-definition.yaml', MODEL_DEFINITION);
  const created = await client.call('POST', '/services', {
    body: {
      name: 'bench-echo-model', desired_session_count: 1, image: 'shell', arch: 'x86_64', group: 'default', domain: 'default', cluster_size: 1,
      cluster_mode: 'single-node', open_to_public: false, config: { model: 'bench-model', model_mount_destination: '/home/work/model' },
    },
  });
  const id = created.endpoint_id;
  services.push(id);
  const deadline = Date.now() + 90_000;
  while ((await client.call('GET', `/services/${id}`)).active_routes.length < 1) {
    if (Date.now() > deadline) throw new Error('the model service never had a healthy route');
    await sleep(200);
  }
  const { token } = await client.call('POST', `/services/${id}/token`, { body: { duration: '1h' } });
  return { name: 'model service (node:http model server)', key: `service/${id}`, path: `/service/${id}/predict`, headers: { Authorization: `Bearer ${token}` }, process: processOf('/home/work/model/server.js') };
}

/** The process whose argv is `node <script> <port>`, from /proc. */
function processOf(script) {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[1] === script && argv[0].endsWith('node')) return { pid: Number(pid), port: Number(argv[2]) };
    } catch {
      // The process ended while we looked.
    }
  }
  throw new Error(`no process runs ${script}`);
}

/**
 * nginx (Debian's, 1 worker process, keep-alive connections to each upstream, no access log) and
 * configurable-http-proxy, both given every upstream's route: nginx from a config generated into a temporary
 * prefix, run in the foreground; CHP through its REST API, as JupyterHub does.
 */
async function startProxies(upstreams) {
  const nginxPort = await freePort();
  const prefix = mkdtempSync(path.join(tmpdir(), 'berth-nginx-'));
  const nginxVersion = /nginx\/([0-9.]+)/.exec(spawnSync('/usr/sbin/nginx', ['-v'], { encoding: 'utf8' }).stderr)?.[1] ?? '';
  const conf = [
    'worker_processes 1;', `pid ${prefix}/nginx.pid;`, `error_log ${prefix}/error.log warn;`, 'events { worker_connections 4096; }', 'http {',
    '  access_log off;', ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${prefix}/${t};`),
    ...upstreams.map((u, i) => `  upstream u${i} { server 127.0.0.1:${u.process.port}; keepalive 64; }`),
    `  server { listen 127.0.0.1:${nginxPort};`,
    // An app keeps its path (it knows its base); a model service's prefix is cut off, as Berth does.
    ...upstreams.map((u, i) => `    location /${u.key}/ { proxy_pass http://u${i}${u.key.startsWith('service/') ? '/' : ''}; proxy_http_version 1.1; proxy_set_header Connection ""; }`),
    '  }', '}',
  ].join('\n');
  writeFileSync(path.join(prefix, 'nginx.conf'), conf);
  const nginx = spawn('/usr/sbin/nginx', ['-p', prefix, '-e', `${prefix}/error.log`, '-c', `${prefix}/nginx.conf`, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const chpPort = await freePort();
  const chpApiPort = await freePort();
  const chpToken = randomBytes(16).toString('hex');
  const chp = spawn(process.execPath, [
    path.join(root, 'node_modules/configurable-http-proxy/bin/configurable-http-proxy'),
    '--ip', '127.0.0.1', '--port', String(chpPort), '--api-ip', '127.0.0.1', '--api-port', String(chpApiPort), '--log-level', 'warn',
  ], { env: { ...process.env, CONFIGPROXY_AUTH_TOKEN: chpToken }, stdio: ['ignore', 'ignore', 'inherit'] });
  await Promise.all([waitForPort(chpApiPort), waitForPort(nginxPort)]);
  for (const u of upstreams) {
    const answer = await fetch(`http://127.0.0.1:${chpApiPort}/api/routes/${u.key}`, {
      method: 'POST', headers: { Authorization: `token ${chpToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ target: `http://127.0.0.1:${u.process.port}` }),
    });
    if (answer.status !== 201) throw new Error(`CHP refused the route: ${answer.status}`);
  }
  const end = (child) => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
  return {
    nginx, nginxPort, nginxVersion, chp, chpPort,
    stop: async () => {
      await Promise.all([end(nginx), end(chp)]);
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------

ensurePackages(['bench']);
await buildServer();
const managerPort = await freePort();
const appPort = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-'));
const berth = await startServer(root, {
  BERTH_ROLES: 'manager,apps', BERTH_MANAGER_PORT: String(managerPort), BERTH_APP_PORT: String(appPort), BERTH_DATA_DIR: dataDir,
  BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY, BERTH_LOG_LEVEL: 'warn',
}, /Berth ready/, benchNodeArgs());
const managerPid = berth.child.pid;
const host = `127.0.0.1:${managerPort}`;
const client = new BerthClient({ endpoint: `http://${host}`, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
const sessions = [];
const services = [];
let proxies = null;
/** Thrown to skip the parts after the last one asked for. */
class Done extends Error {}

try {
  // 10,000 terminals exceed the bootstrap keypair's request budget: lift it, as bench/api.mjs does.
  const lifted = await client.call('POST', '/admin/gql', { body: { query: `mutation { modify_keypair(access_key: "${ACCESS_KEY}", props: {rate_limit: null}) { ok msg } }` } });
  if (!lifted.data?.modify_keypair?.ok) throw new Error(`could not lift the rate limit: ${JSON.stringify(lifted)}`);

  // 1. start-service → Jupyter's first 200 through the proxy, shutdown-service between runs.
  let jupyterId = null;
  if (PARTS.has('jupyter')) {
    jupyterId = (await client.call('POST', '/session', { body: { name: 'bench-jupyter', image: 'python', group: 'default' } })).sessionId;
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
  }

  // 2. Proxy throughput: each upstream direct, through Berth's proxy, through nginx and through
  // configurable-http-proxy (its REST API given the same routes, as JupyterHub does), in interleaved rounds; medians
  // are printed. Upstreams: the echo app and Jupyter (app routes, a route cookie) and a model service's endpoint (a
  // bearer token, /service/<endpoint>/…), whose model server is the same kind of node:http echo.
  const echoId = (await client.call('POST', '/session', { body: { name: 'bench-echo', image: 'shell', group: 'default' } })).sessionId;
  sessions.push('bench-echo');
  const echo = await openApp(client, 'bench-echo', echoId, 'echo');
  const upstreams = [{ name: 'echo app (node:http)', key: `app/${echo.routeId}`, path: `/app/${echo.routeId}/`, headers: { Cookie: echo.cookie }, process: upstreamOf(echo.routeId) }];
  if (PARTS.has('jupyter')) {
    const jupyter = await openApp(client, 'bench-jupyter', jupyterId, 'jupyter');
    upstreams.push({ name: 'Jupyter /api/status', key: `app/${jupyter.routeId}`, path: `/app/${jupyter.routeId}/api/status`, headers: { Cookie: jupyter.cookie }, process: upstreamOf(jupyter.routeId) });
  }
  if (PARTS.has('service')) upstreams.push(await openModelService(client));
  proxies = await startProxies(upstreams);
  const cases = upstreams.flatMap((u) => {
    // The upstream sees the path under the route: the app's own (apps are told their base path), or the model's.
    const upstreamPath = u.key.startsWith('service/') ? u.path.slice(`/${u.key}`.length) : u.path;
    return [
      { upstream: u, name: 'direct to the upstream', url: `http://127.0.0.1:${u.process.port}${upstreamPath}`, headers: {}, pid: u.process.pid, runs: [] },
      { upstream: u, name: "Berth's app proxy", url: `http://127.0.0.1:${appPort}${u.path}`, headers: u.headers, pid: managerPid, runs: [] },
      { upstream: u, name: `nginx ${proxies.nginxVersion} (1 worker, keep-alive upstream)`, url: `http://127.0.0.1:${proxies.nginxPort}${u.path}`, headers: {}, pid: proxies.nginx.pid, tree: true, runs: [] },
      { upstream: u, name: 'configurable-http-proxy 5.3', url: `http://127.0.0.1:${proxies.chpPort}${u.path}`, headers: {}, pid: proxies.chp.pid, runs: [] },
    ];
  });
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) c.runs.push(await measure({ url: c.url, headers: c.headers, connections: CONNECTIONS, duration: DURATION, pid: c.pid, tree: c.tree }));
  }
  const median = (runs, key) => pct(runs.map((r) => r[key]), 50);
  for (const u of upstreams) {
    const [direct, berthCase, nginxCase, chpCase] = cases.filter((c) => c.upstream === u);
    const directRps = median(direct.runs, 'rps');
    console.log(`\nApp proxy: GET ${u.path.replace(/[0-9a-f]{24}|[0-9a-f-]{36}/, '<route>')} on the ${u.name}: ${ROUNDS} interleaved rounds of ${DURATION} s by ${loadGenerator()}, medians; ${CONNECTIONS} keep-alive connections; load average now ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log('| case | req/s | p50 ms | p99 ms | vs direct | CPU µs per request (upstream for direct, else the proxy process) | errors | req/s per round |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---|');
    for (const c of [direct, berthCase, nginxCase, chpCase]) {
      const rps = median(c.runs, 'rps');
      console.log(`| ${c.name} | ${Math.round(rps)} | ${median(c.runs, 'p50')} | ${median(c.runs, 'p99')} | ${(rps / directRps).toFixed(2)} | ${median(c.runs, 'cpuUs').toFixed(0)} | ${c.runs.reduce((n, r) => n + r.errors, 0)} | ${c.runs.map((r) => Math.round(r.rps)).join(' / ')} |`);
    }
    // Rounds are interleaved, so round-by-round ratios cancel most of the drift of a shared machine.
    const paired = (a, b, key) => pct(a.runs.map((r, i) => r[key] / b.runs[i][key]), 50).toFixed(2);
    console.log(`Median of the per-round ratios: Berth / direct ${paired(berthCase, direct, 'rps')}, Berth / CHP ${paired(berthCase, chpCase, 'rps')}, Berth / nginx ${paired(berthCase, nginxCase, 'rps')} req/s; Berth ${median(berthCase.runs, 'cpuUs').toFixed(0)} µs CPU per request, ${paired(berthCase, chpCase, 'cpuUs')} of CHP's, ${paired(berthCase, nginxCase, 'cpuUs')} of nginx's (targets: ≥ 0.50 of direct, ≥ 2.00 of CHP, ≥ 0.70 of nginx, ≤ 60 µs)`);
  }
  await proxies.stop();
  proxies = null;
  if (jupyterId) {
    await client.call('DELETE', '/session/bench-jupyter');
    sessions.splice(sessions.indexOf('bench-jupyter'), 1);
  }
  const appPath = upstreams[0].path;

  // 3. Keystroke echo on a fresh terminal: one character at a time, timed until the terminal echoes it.
  if (PARTS.has('keys')) {
    const echoes = await keystrokes('bench-echo');
    console.log(`\nKeystroke echo through the pty stream (${KEYS} keystrokes, one at a time): p50 ${ms(pct(echoes, 50))} ms, p99 ${ms(pct(echoes, 99))} ms, max ${ms(Math.max(...echoes))} ms`);
  }
  if (!PARTS.has('churn')) throw new Done();

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
} catch (err) {
  if (!(err instanceof Done)) throw err;
} finally {
  await proxies?.stop();
  // Sessions outlive the manager by design; a bench's must not.
  for (const id of services) await client.request('DELETE', `/services/${id}`).catch(() => undefined);
  for (const name of sessions) await client.request('DELETE', `/session/${name}`).catch(() => undefined);
  client.close();
  await berth.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
