// The dashboard's performance (issue: dashboard, performance), from one run:
// 1. first-load JavaScript per route, gzip-compressed, from the build's manifests, against a stated budget (the
//    bench exits non-zero when a route is over it);
// 2. time from navigation start to the session list's rows being visible in Chromium, on a warm server, with the
//    browser's cache warm (a returning user) and emptied before each load (a first visit);
// 3. time from navigation start to the statistics page's first chart (the charting library is loaded only there,
//    after the page hydrates), same two cache states;
// 4. the relay's added latency: the same signed calls made to the manager directly with the signing client, and
//    through the dashboard's relay (/api/manager/…) with the signed-in user's session cookie, interleaved; and the
//    relay's req/s at concurrency 8 against its floor, a bare route handler of the same build (GET /api/healthz).
//
// Berth runs as a child process (roles manager + web) from dist/ and .next/ (each built first when missing or
// stale, as `npm start` decides), on a temporary data directory and free loopback ports; the browser (Debian's
// Chromium through playwright-core, as the e2e tests launch it) and the load run here. Knobs: BENCH_PAGE_LOADS
// (20 per cache state), BENCH_RELAY_REQUESTS (1,500 per case), BENCH_RELAY_CONCURRENCY (8), BENCH_SESSIONS (3),
// BENCH_QUEUED_SESSIONS (1000: the session list is timed again with that many more sessions, queued in a scaling
// group without agents so no process starts), BENCH_JS_BUDGET_KIB (see BUDGET_KIB), BENCH_CPU_PROF (a directory: Berth
// runs with --cpu-prof into it).
import http from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { benchNodeArgs, loadClient } from './harness.mjs';
import { createUser, launchBrowser, noteVisible, queueSessions, signIn, startBerth } from './browser.mjs';
import { buildDashboard, buildServer, dashboardStale, serverStale } from '../scripts/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nextDir = path.join(root, '.next');

/**
 * First-load JS budget per route, KiB gzip: the heaviest route of today's build (a folder's page, 288 KiB, of
 * which 180 KiB are React, Next's runtime and the root layout's MUI theme, shared by every route) rounded up. The
 * headroom (12 KiB, a few MUI components' worth) is kept small on purpose: a new dependency the size of a chart or
 * an editor trips it, and whoever adds one raises the budget here knowingly.
 */
const BUDGET_KIB = Number(process.env.BENCH_JS_BUDGET_KIB ?? 300);
const PAGE_LOADS = Number(process.env.BENCH_PAGE_LOADS ?? 20);
const RELAY_REQUESTS = Number(process.env.BENCH_RELAY_REQUESTS ?? 1500);
const RELAY_CONCURRENCY = Number(process.env.BENCH_RELAY_CONCURRENCY ?? 8);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 3);
const QUEUED_SESSIONS = Number(process.env.BENCH_QUEUED_SESSIONS ?? 1000);
/** Loads of each case not counted: the first ones compile the page's server code and fill the caches. */
const WARM_UP_LOADS = 3;

const ADMIN_ACCESS_KEY = 'AKBENCH0000000000005';
const ADMIN_SECRET_KEY = 'benchSecretKey00000000000000000000000005';
const ADMIN_PASSWORD = 'bench-admin-password-123';
const USER_EMAIL = 'bench-user@example.com';
const USER_PASSWORD = 'bench-user-password-456';
const ROW = '[data-testid="session-row"]';
/** The statistics page's first chart drawn: an SVG inside the user's first chart card. */
const CHART = '[data-testid="user-chart"] svg';
/** The dashboard's own session-list query (components/sessions/useSessions.ts), so the relay case is the page's call. */
const LIST_QUERY = `query($status: String, $limit: Int, $offset: Int, $order: String, $filter: String) {
  compute_session_list(status: $status, limit: $limit, offset: $offset, order: $order, filter: $filter) {
    total_count
    items { id name type status status_info image created_at terminated_at occupied_slots cluster_size group_name }
  }
}`;
const LIST_BODY = JSON.stringify({ query: LIST_QUERY, variables: { status: 'PENDING,SCHEDULED,PULLING,PREPARING,RUNNING,RESTARTING,RUNNING_DEGRADED,TERMINATING,ERROR', limit: 25, offset: 0, order: '-created_at', filter: null } });

/** Nearest-rank percentile. */
const pct = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
};
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const kib = (bytes) => bytes / 1024;
const sleep = (t) => new Promise((r) => setTimeout(r, t));

// --- 1. First-load JS ----------------------------------------------------------------------------------------

const readJson = (file) => JSON.parse(readFileSync(path.join(nextDir, file), 'utf8'));

/**
 * The client-reference manifest Turbopack writes for one app page. Its `entryJSFiles` lists, per segment (the root
 * layout, the group's layout, the page), the chunks the browser loads before the page can hydrate.
 */
function clientReferenceManifest(page) {
  const file = path.join(nextDir, 'server/app', `${page}_client-reference-manifest.js`);
  if (!existsSync(file)) return null;
  // The manifest is a script that assigns to globalThis.__RSC_MANIFEST: run it against a stand-in global.
  const scope = { __RSC_MANIFEST: {} };
  new Function('globalThis', 'self', readFileSync(file, 'utf8'))(scope, scope);
  return scope.__RSC_MANIFEST[page] ?? null;
}

/**
 * Route → the JS files of its first load: the framework's root chunks (build-manifest.json's rootMainFiles), plus
 * the page's own chunks, from Turbopack's client-reference manifests (Next 16's default bundler) or webpack's
 * app-build-manifest.json. Polyfills are left out: they load only in browsers without ES modules (`nomodule`).
 */
function firstLoadFiles() {
  const build = readJson('build-manifest.json');
  const webpackPages = existsSync(path.join(nextDir, 'app-build-manifest.json')) ? readJson('app-build-manifest.json').pages : null;
  const routes = readJson('app-path-routes-manifest.json');
  const result = [];
  for (const [page, route] of Object.entries(routes)) {
    // Route handlers (/api/…, icons) ship no JS; Next's own error pages are not routes a user opens.
    if (!page.endsWith('/page') || route.startsWith('/_')) continue;
    const files = new Set(build.rootMainFiles);
    if (webpackPages) {
      for (const f of webpackPages[page] ?? []) files.add(f);
    } else {
      const manifest = clientReferenceManifest(page);
      if (!manifest) throw new Error(`no client-reference manifest for ${page}: is .next a complete build?`);
      if (manifest.entryJSFiles) {
        for (const chunks of Object.values(manifest.entryJSFiles)) for (const f of chunks) files.add(f);
      } else {
        // webpack (next build --webpack, e.g. in a git worktree where Turbopack fails) writes no entryJSFiles: the
        // page's first load is then the chunks of every client module its server components reference (URL-encoded
        // paths: a dynamic segment's brackets).
        for (const mod of Object.values(manifest.clientModules)) for (const c of mod.chunks ?? []) if (typeof c === 'string' && c.endsWith('.js')) files.add(decodeURIComponent(c.replace(/^\/_next\//, '')));
      }
    }
    result.push({ route, files: [...files].filter((f) => f.endsWith('.js')) });
  }
  return result.sort((a, b) => a.route.localeCompare(b.route));
}

/** Whether .next came from `next build --webpack` (its client-reference manifests have no entryJSFiles). */
function webpackBuild() {
  const manifest = clientReferenceManifest('/(dashboard)/sessions/page');
  return Boolean(manifest && !manifest.entryJSFiles);
}

const gzipCache = new Map();
/** A file's size gzip-compressed at zlib's default level, as Next's server compresses what it serves. */
function gzipBytes(file) {
  if (!gzipCache.has(file)) gzipCache.set(file, gzipSync(readFileSync(path.join(nextDir, file))).length);
  return gzipCache.get(file);
}

/** Prints route → first-load KiB against the budget; answers the routes over it. */
function reportFirstLoadJs() {
  const routes = firstLoadFiles().map(({ route, files }) => ({ route, files, bytes: files.reduce((n, f) => n + gzipBytes(f), 0) }));
  const shared = routes.reduce((common, r) => common.filter((f) => r.files.includes(f)), routes[0]?.files ?? []);
  const sharedBytes = shared.reduce((n, f) => n + gzipBytes(f), 0);
  console.log(`\nFirst-load JS per route (gzip of every chunk the first load of the route needs), budget ${BUDGET_KIB} KiB per route`);
  console.log('| route | chunks | KiB gzip | budget |');
  console.log('|---|---:|---:|---|');
  for (const r of routes) console.log(`| ${r.route} | ${r.files.length} | ${fmt(kib(r.bytes))} | ${kib(r.bytes) <= BUDGET_KIB ? 'PASS' : 'OVER'} |`);
  console.log(`Shared by every route: ${shared.length} chunks, ${fmt(kib(sharedBytes))} KiB (React, Next's runtime, the root layout).`);
  if (webpackBuild()) console.log("A webpack build: these figures are an upper bound (every chunk of every client module the page references; the browser check below shows how many a real load fetches). Budget figures are for Next's default build, Turbopack.");
  return { routes, over: routes.filter((r) => kib(r.bytes) > BUDGET_KIB) };
}

// --- Berth and the browser -----------------------------------------------------------------------------------

/** Starts shell sessions (the fastest image to start) under these names and waits until each is RUNNING. */
async function startSessions(client, names) {
  for (const name of names) await client.call('POST', '/session', { body: { name, image: 'shell', group: 'default' } });
  const deadline = Date.now() + 60_000;
  for (const name of names) {
    while ((await client.call('GET', `/session/${name}`)).status !== 'RUNNING') {
      if (Date.now() > deadline) throw new Error(`session ${name} did not reach RUNNING in 60 s`);
      await sleep(200);
    }
  }
}

// --- 2. Time to the session list -----------------------------------------------------------------------------

/**
 * One full load of /sessions: from the navigation's start until a session row is visible, on the page's clock, and
 * when Playwright's wait for it returned, on ours; plus Navigation and Resource Timing for where the time went.
 */
async function loadSessionList(page, url) {
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForSelector(ROW, { state: 'visible', timeout: 30_000 });
  const waited = performance.now() - t0;
  const timing = await page.evaluate(() => {
    const [entry] = performance.getEntriesByType('navigation');
    // The list's first page comes with the HTML (the page's server render reads it: app/lib/page-data.ts), so the
    // HTML's last byte is when the rows could first be drawn; a list query through the relay would be a regression.
    const query = performance.getEntriesByType('resource').find((r) => r.name.endsWith('/api/manager/admin/gql'));
    return {
      visible: window.__rowsVisibleAt ?? NaN,
      ttfb: entry.responseStart,
      html: entry.responseEnd,
      dcl: entry.domContentLoadedEventEnd,
      readList: Boolean(query),
    };
  });
  return { waited, ...timing };
}

/** `PAGE_LOADS` loads after warm-up, with the browser's cache kept or emptied (over CDP) before each. */
async function timeSessionList(browser, webUrl, emptyCache) {
  const url = `${webUrl}/sessions`;
  if (!browser.noting) browser.noting = browser.context.addInitScript(noteVisible, { selector: ROW, key: '__rowsVisibleAt' });
  await browser.noting;
  const cdp = await browser.context.newCDPSession(browser.page);
  const samples = [];
  for (let i = 0; i < WARM_UP_LOADS + PAGE_LOADS; i++) {
    if (emptyCache) await cdp.send('Network.clearBrowserCache');
    const sample = await loadSessionList(browser.page, url);
    if (i >= WARM_UP_LOADS) samples.push(sample);
  }
  await cdp.detach();
  return samples;
}

/** The scripts an empty-cache load of `route` fetches, to check the manifest-based figure against a real browser. */
async function scriptsFetched(browser, webUrl, route) {
  const cdp = await browser.context.newCDPSession(browser.page);
  await cdp.send('Network.clearBrowserCache');
  await cdp.detach();
  const files = new Set();
  const onResponse = (response) => {
    const url = new URL(response.url());
    if (response.request().resourceType() === 'script' && url.pathname.startsWith('/_next/')) files.add(url.pathname.slice('/_next/'.length));
  };
  browser.page.on('response', onResponse);
  await browser.page.goto(`${webUrl}${route}`, { waitUntil: 'networkidle' });
  browser.page.off('response', onResponse);
  return [...files];
}

// --- 3. The relay's added latency ----------------------------------------------------------------------------

const relayAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * A request to the dashboard's relay (or another of its routes, `prefix`) as the signed-in browser makes it: its
 * session cookie, and Origin on a POST.
 */
function relayRequest(webUrl, cookie, method, uri, body, prefix = '/api/manager') {
  const target = new URL(`${prefix}${uri}`, webUrl);
  const headers = { Cookie: cookie, Accept: 'application/json' };
  if (body) Object.assign(headers, { Origin: target.origin, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method, headers, agent: relayAgent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `send` `count` times, `concurrency` at a time; answers each request's ms, how many were not 200, and the wall ms. */
async function timeRequests(send, count, concurrency) {
  const times = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const t0 = performance.now();
        const status = await send();
        times.push(performance.now() - t0);
        if (status !== 200) failed++;
      }
    }),
  );
  return { times, failed, ms: performance.now() - started };
}

/**
 * Direct and relayed (and, when given, the floor: a bare route handler of the same Next server), in alternating
 * blocks (6 each) so all see the same drift of a shared machine; answers the pooled samples of each. The order
 * turns by one each block, so no case always runs right after another: a block of direct calls (~4,500 req/s at
 * concurrency 8) leaves a garbage collection due, and with a fixed order the relay's block always paid it (0.70
 * of the floor in the same run where blocks in turns measured 0.77).
 */
async function compareRelay(sends, concurrency) {
  const blocks = 6;
  const perBlock = Math.ceil(RELAY_REQUESTS / blocks);
  const result = Object.fromEntries(Object.keys(sends).map((key) => [key, { times: [], failed: 0, ms: 0 }]));
  for (const send of Object.values(sends)) await timeRequests(send, 50, concurrency); // warm-up: connections, JIT, caches
  const cases = Object.entries(sends);
  for (let b = 0; b < blocks; b++) {
    for (const [key, send] of [...cases.slice(b % cases.length), ...cases.slice(0, b % cases.length)]) {
      const { times, failed, ms } = await timeRequests(send, perBlock, concurrency);
      result[key].times.push(...times);
      result[key].failed += failed;
      result[key].ms += ms;
    }
  }
  return result;
}

/** Part 2: times the session list with a warm, then an emptied cache, and checks the first-load figure of /sessions. */
async function reportSessionList(browser, webUrl, listed, sessions = SESSIONS) {
  const warm = await timeSessionList(browser, webUrl, false);
  const cold = await timeSessionList(browser, webUrl, true);
  const rowsShown = await browser.page.locator(ROW).count();
  const fetched = await scriptsFetched(browser, webUrl, '/sessions');
  console.log(`\nTime to the session list visible in Chromium (${sessions} live sessions, ${rowsShown} rows on the first page; ${PAGE_LOADS} loads of /sessions per case after ${WARM_UP_LOADS} warm-up loads; warm server)`);
  console.log('| browser cache | rows visible p50 ms | p95 ms | p50 of the steps: first byte | HTML received (with the rows) | DOMContentLoaded | loads that read the list again | Playwright\'s wait returned p50 |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [label, samples] of [['warm (a returning user)', warm], ['emptied before each load (a first visit)', cold]]) {
    const p50 = (key) => fmt(pct(samples.map((s) => s[key]), 50));
    console.log(`| ${label} | ${p50('visible')} | ${fmt(pct(samples.map((s) => s.visible), 95))} | ${p50('ttfb')} | ${p50('html')} | ${p50('dcl')} | ${samples.filter((s) => s.readList).length} of ${samples.length} | ${p50('waited')} |`);
  }
  console.log("Times from the navigation's start, on the page's clock (rows visible: a MutationObserver's first sight of a row with a box); Playwright's wait polls with a backoff, so it returns later.");
  const missing = listed ? listed.files.filter((f) => !fetched.includes(f)) : [];
  const extra = listed ? fetched.filter((f) => !listed.files.includes(f)) : [];
  const fetchedKiB = fmt(kib(fetched.reduce((n, f) => n + (existsSync(path.join(nextDir, f)) ? gzipBytes(f) : 0), 0)));
  const agreement = missing.length || extra.length ? `the manifests list ${listed?.files.length ?? 0}: ${missing.length} of those not fetched, ${extra.length} fetched beyond them` : 'exactly the chunks the manifests list';
  console.log(`Check of the first-load figure: an empty-cache load of /sessions (until the network is idle) fetched ${fetched.length} scripts, ${fetchedKiB} KiB gzip: ${agreement}.`);
}

/** One full load of /statistics: from the navigation's start until the first chart's SVG is visible (page clock). */
async function loadStatistics(page, url) {
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForSelector(CHART, { state: 'visible', timeout: 30_000 });
  return page.evaluate(() => window.__chartVisibleAt ?? NaN);
}

/** Part 3: time to the first chart, with a warm and an emptied cache. */
async function reportStatistics(browser, webUrl, listed) {
  await browser.context.addInitScript(noteVisible, { selector: CHART, key: '__chartVisibleAt' });
  const cdp = await browser.context.newCDPSession(browser.page);
  const rows = [];
  for (const [label, empty] of [['warm (a returning user)', false], ['emptied before each load (a first visit)', true]]) {
    const samples = [];
    for (let i = 0; i < WARM_UP_LOADS + PAGE_LOADS; i++) {
      if (empty) await cdp.send('Network.clearBrowserCache');
      const t = await loadStatistics(browser.page, `${webUrl}/statistics`);
      if (i >= WARM_UP_LOADS) samples.push(t);
    }
    rows.push([label, samples]);
  }
  await cdp.detach();
  console.log(`\nTime to the statistics page's first chart in Chromium (${PAGE_LOADS} loads of /statistics per case after ${WARM_UP_LOADS} warm-up loads; the charts are a separate chunk loaded after hydration)`);
  console.log('| browser cache | first chart visible p50 ms | p95 ms |');
  console.log('|---|---:|---:|');
  for (const [label, samples] of rows) console.log(`| ${label} | ${fmt(pct(samples, 50))} | ${fmt(pct(samples, 95))} |`);
  if (listed) console.log(`First-load JS of /statistics: ${fmt(kib(listed.bytes))} KiB gzip (the chart chunk comes after, on this page only).`);
}

/**
 * Part 3: the same two calls, direct (signed here) and through the relay (signed by the BFF); answers the non-200s.
 * GET /v2 is also set beside the relay's floor: the dashboard's GET /api/healthz, a bare route handler of the same
 * Next server answering a fixed JSON body (no session, no manager), i.e. what any route of this Next server costs.
 */
async function reportRelay(webUrl, cookie, user) {
  const floor = () => relayRequest(webUrl, cookie, 'GET', '', undefined, '/api/healthz');
  const cases = [
    { name: 'GET /v2', direct: () => user.request('GET', '/v2').then((r) => r.status), relay: () => relayRequest(webUrl, cookie, 'GET', '/v2'), floor },
    {
      name: 'POST /admin/gql (the session list query)',
      direct: () => user.request('POST', '/admin/gql', { rawBody: Buffer.from(LIST_BODY), contentType: 'application/json' }).then((r) => r.status),
      relay: () => relayRequest(webUrl, cookie, 'POST', '/admin/gql', LIST_BODY),
    },
  ];
  console.log(`\nThe relay's added latency: ${RELAY_REQUESTS} requests per case, direct and relayed in alternating blocks, their order turning; direct = signed here by the signing client, relayed = browser-like request with the session cookie → BFF (unseal, sign) → manager`);
  console.log('| call | concurrency | direct p50 ms | p99 ms | req/s | relayed p50 ms | p99 ms | req/s | added p50 ms | added p99 ms | non-200 |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  let failures = 0;
  const floors = [];
  for (const c of cases) {
    for (const concurrency of [1, RELAY_CONCURRENCY]) {
      const r = await compareRelay(c.floor && concurrency === RELAY_CONCURRENCY ? { direct: c.direct, relay: c.relay, floor: c.floor } : { direct: c.direct, relay: c.relay }, concurrency);
      if (r.floor) floors.push({ name: c.name, concurrency, r });
      const [d50, d99, r50, r99] = [pct(r.direct.times, 50), pct(r.direct.times, 99), pct(r.relay.times, 50), pct(r.relay.times, 99)];
      failures += r.direct.failed + r.relay.failed;
      const rps = (side) => Math.round((side.times.length / side.ms) * 1000);
      console.log(`| ${c.name} | ${concurrency} | ${fmt(d50)} | ${fmt(d99)} | ${rps(r.direct)} | ${fmt(r50)} | ${fmt(r99)} | ${rps(r.relay)} | ${fmt(r50 - d50)} | ${fmt(r99 - d99)} | ${r.direct.failed + r.relay.failed} |`);
    }
  }
  const rps = (side) => (side.times.length / side.ms) * 1000;
  for (const { name, concurrency, r } of floors) {
    failures += r.floor.failed;
    console.log(`The relay's floor, same run and blocks, concurrency ${concurrency}: GET /api/healthz (a bare route handler, fixed JSON) ${Math.round(rps(r.floor))} req/s, p50 ${fmt(pct(r.floor.times, 50))} ms; relayed ${name} ${Math.round(rps(r.relay))} req/s: ${(rps(r.relay) / rps(r.floor)).toFixed(2)} of the floor (target ≥ 0.80); non-200 ${r.floor.failed}`);
  }
  return failures;
}

// -------------------------------------------------------------------------------------------------------------

process.chdir(root);
if (serverStale()) await buildServer();
if (dashboardStale()) buildDashboard();
const jsBudget = reportFirstLoadJs();

const { BerthClient } = await loadClient(root);
const cleanups = [];
let cleaning = null;
let interrupted = false;
/**
 * Runs the cleanups newest first, one at a time, whatever failed before. A signal and the main flow's `finally`
 * both call it; they share the one run, so neither exits halfway through the other's.
 */
function cleanUp() {
  cleaning ??= (async () => {
    while (cleanups.length) {
      try {
        await cleanups.pop()();
      } catch (err) {
        console.error('cleanup:', err instanceof Error ? err.message : err);
      }
    }
  })();
  return cleaning;
}
// Ctrl-C or a kill still ends the sessions, the browser and Berth.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    interrupted = true;
    void cleanUp().then(() => process.exit(130));
  });
}

try {
  const nodeArgs = benchNodeArgs();
  const berth = await startBerth({ admin: { accessKey: ADMIN_ACCESS_KEY, secretKey: ADMIN_SECRET_KEY, password: ADMIN_PASSWORD }, nodeArgs });
  cleanups.push(berth.stop);
  const admin = new BerthClient({ endpoint: berth.managerUrl, accessKey: ADMIN_ACCESS_KEY, secretKey: ADMIN_SECRET_KEY });
  cleanups.push(() => admin.close());
  const keys = await createUser(admin, { email: USER_EMAIL, username: 'bench-user', password: USER_PASSWORD });
  const user = new BerthClient({ endpoint: berth.managerUrl, ...keys });
  cleanups.push(() => user.close());
  // Sessions outlive the manager by design; the bench's must not. Pushed before they start, so a half-started
  // set is ended too.
  const names = Array.from({ length: SESSIONS }, (_, i) => `bench-list-${i}`);
  cleanups.push(async () => {
    for (const name of names) await user.request('DELETE', `/session/${name}`).catch(() => undefined);
  });
  await startSessions(user, names);

  const browser = await launchBrowser();
  cleanups.push(browser.close);
  await signIn(browser.page, berth.webUrl, { email: USER_EMAIL, password: USER_PASSWORD });

  await reportSessionList(browser, berth.webUrl, jsBudget.routes.find((r) => r.route === '/sessions'));
  // The statistics chart only ended sessions: end one and wait until the manager counts it as ended.
  await user.call('DELETE', `/session/${names[0]}`);
  const endedBy = Date.now() + 60_000;
  const ended = async () => (await user.call('POST', '/admin/gql', { body: { query: '{ compute_session_list(status: "TERMINATED") { total_count } }' } })).data.compute_session_list.total_count;
  while ((await ended()) < 1) {
    if (Date.now() > endedBy) throw new Error('the ended session was not TERMINATED within 60 s');
    await sleep(200);
  }
  await reportStatistics(browser, berth.webUrl, jsBudget.routes.find((r) => r.route === '/statistics'));
  if (QUEUED_SESSIONS > 0) {
    const queuedAt = performance.now();
    await queueSessions(admin, user, QUEUED_SESSIONS);
    console.log(`\nQueued ${QUEUED_SESSIONS} sessions in ${fmt((performance.now() - queuedAt) / 1000)} s.`);
    await reportSessionList(browser, berth.webUrl, jsBudget.routes.find((r) => r.route === '/sessions'), SESSIONS - 1 + QUEUED_SESSIONS);
  }
  const cookie = (await browser.context.cookies(berth.webUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
  const failures = await reportRelay(berth.webUrl, cookie, user);
  if (failures) throw new Error(`${failures} requests did not answer 200`);
} catch (err) {
  process.exitCode = 1;
  if (!interrupted) console.error(err); // after a signal, the failure is the cleanup closing things under it
} finally {
  relayAgent.destroy();
  await cleanUp();
}

if (jsBudget.over.length) {
  console.error(`\nOver the first-load JS budget (${BUDGET_KIB} KiB): ${jsBudget.over.map((r) => `${r.route} ${fmt(kib(r.bytes))} KiB`).join(', ')}`);
  process.exitCode = 1;
}
