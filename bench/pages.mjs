// Pages at scale (issue 18, target 4): one user with 1,000 live sessions (queued: PENDING in a scaling group
// without agents, so nothing starts), 10,000 ended ones and 500 folders, on PGlite and on PostgreSQL; then
// 1. the dashboard's session-list GraphQL query (its own text, components/sessions/useSessions.ts) for the running
//    and the finished tab, first page of 25, newest first, and the folder list (GET /folders), each called
//    directly (signed) one at a time: p50 and p95 (target: session list p50 ≤ 10 ms on both databases);
// 2. on PGlite (what `npm start` runs): the time from navigation start until the sessions page shows rows, and
//    the folders page its rows, in Chromium, warm server and browser cache (target p50 ≤ 400 ms).
//
// The live sessions and folders are made through the API. The 10,000 ended sessions are inserted into the
// database directly (copies of a live row, TERMINATED, created a minute apart going back; no kernel rows): through
// the API each would be a session started and ended. PGlite is embedded, so for that insert Berth is stopped, the
// bench opens the data directory, and Berth starts again on it. Knobs: BENCH_LIVE (1000), BENCH_ENDED (10000),
// BENCH_FOLDERS (500), BENCH_QUERIES (100 per case), BENCH_PAGE_LOADS (20), BENCH_DATABASES (pglite,postgres),
// BENCH_EXPLAIN (1: print EXPLAIN ANALYZE of the list query's statements, for docs/query-plans.md), BENCH_CPU_PROF
// (a directory: Berth runs with --cpu-prof into it), BENCH_VACUUM (1, the default: VACUUM (ANALYZE) after seeding.
// The bulk insert stands for months of ended sessions, which PostgreSQL's autovacuum would have vacuumed and
// analyzed as they came; 0 measures right after the insert, before autovacuum's first pass. On PGlite Berth
// vacuums as it starts (server/operations/db-upkeep.ts), so there the two are the same).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { benchNodeArgs, loadClient } from './harness.mjs';
import { createUser, inParallel, launchBrowser, noteVisible, queueSessions, signIn, startBerth } from './browser.mjs';
import { buildDashboard, buildServer, dashboardStale, serverStale } from '../scripts/build.mjs';
import { startPostgres } from '../scripts/postgres.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LIVE = Number(process.env.BENCH_LIVE ?? 1000);
const ENDED = Number(process.env.BENCH_ENDED ?? 10_000);
const FOLDERS = Number(process.env.BENCH_FOLDERS ?? 500);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 100);
const PAGE_LOADS = Number(process.env.BENCH_PAGE_LOADS ?? 20);
const DATABASES = (process.env.BENCH_DATABASES ?? 'pglite,postgres').split(',');
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const VACUUM = process.env.BENCH_VACUUM !== '0';
const WARM_UP = 3;

const ADMIN = { accessKey: 'AKBENCH0000000000006', secretKey: 'benchSecretKey00000000000000000000000006', password: 'bench-admin-password-123' };
const USER = { email: 'bench-pages@example.com', username: 'bench-pages', password: 'bench-user-password-456' };
/** The dashboard's session-list query, as components/sessions/useSessions.ts sends it. */
const LIST_QUERY = `query($status: String, $limit: Int, $offset: Int, $order: String, $filter: String) {
  compute_session_list(status: $status, limit: $limit, offset: $offset, order: $order, filter: $filter) {
    total_count
    items { id name type status status_info queue_position estimated_start image created_at terminated_at occupied_slots cluster_size group_name }
  }
}`;
const LIVE_STATUSES = ['PENDING', 'SCHEDULED', 'PULLING', 'PREPARING', 'RUNNING', 'RESTARTING', 'RUNNING_DEGRADED', 'TERMINATING', 'ERROR'];
const FINISHED_STATUSES = ['TERMINATED', 'CANCELLED'];
const listBody = (statuses) => ({ query: LIST_QUERY, variables: { status: statuses.join(','), limit: 25, offset: 0, order: '-created_at', filter: null } });

const pct = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
};
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');

/**
 * The ended sessions: copies of one live session of the user, TERMINATED, each created a minute before the last
 * (all older than the live ones), with their own ids and names. Plain SQL, the same on both databases.
 */
async function insertEnded(exec, accessKey, count) {
  const columns = (await exec(`select column_name from information_schema.columns where table_name = 'sessions' and table_schema = current_schema() order by ordinal_position`)).map((r) => r.column_name);
  const replaced = {
    id: 'gen_random_uuid()',
    name: `'bench-ended-' || i`,
    status: `'TERMINATED'`,
    result: `'SUCCESS'`,
    created_at: `now() - interval '1 day' - i * interval '1 minute'`,
    status_changed: `now() - interval '1 day' - i * interval '1 minute' + interval '30 minutes'`,
    terminated_at: `now() - interval '1 day' - i * interval '1 minute' + interval '30 minutes'`,
  };
  const select = columns.map((c) => (c in replaced ? replaced[c] : `s.${c}`)).join(', ');
  await exec(`insert into sessions (${columns.join(', ')}) select ${select} from (select * from sessions where access_key = '${accessKey}' limit 1) s, generate_series(1, ${count}) i`);
}

/**
 * The list query's statements as the manager sends them for a plain user (server/db/list-query.ts runList, keyed):
 * the count and the page's keys (then, with the keys as values, the page's rows).
 */
function listStatements(accessKey, statuses) {
  // The owner and project are joined only for the rows (and for a filter or order naming their columns).
  const from = 'from sessions as s';
  const where = `where s.access_key = '${accessKey}' and s.status in (${statuses.map((x) => `'${x}'`).join(', ')})`;
  const order = 'order by s.created_at desc, s.id';
  return [
    `select count(*) as count ${from} ${where}`,
    `select s.id as page_key ${from} ${where} ${order} limit 25 offset 0`,
  ];
}

/**
 * The running tab's queue positions as server/sessions/scheduler/line-orders.ts loads them when no kept order
 * serves (the line's ids in order, and when the next reserved session joins it); with one kept, none is sent.
 */
function lineStatement() {
  const line = `s.status = 'PENDING' and s.scaling_group_name = 'bench-empty'`;
  const deps = `s.id not in (select d.session_id from session_dependencies as d inner join sessions as p on p.id = d.depends_on where not (p.status = 'TERMINATED' and p.result = 'success'))`;
  const next = `(select min(r.starts_at) from sessions as r where r.status = 'PENDING' and r.scaling_group_name = 'bench-empty' and r.starts_at > now()) as next_start`;
  return `select coalesce(string_agg(s.id::text, ',' order by s.priority desc, s.created_at, s.id), '') as ids, ${next} from sessions as s where ${line} and (s.starts_at is null or s.starts_at <= now()) and ${deps}`;
}

async function timeCalls(call) {
  const times = [];
  for (let i = 0; i < WARM_UP + QUERIES; i++) {
    const t0 = performance.now();
    await call();
    if (i >= WARM_UP) times.push(performance.now() - t0);
  }
  return times;
}

/** One full load of `url` until `selector` is visible (page clock: from the navigation's start). */
async function timeToVisible(browser, url, selector, key) {
  await browser.context.addInitScript(noteVisible, { selector, key });
  const samples = [];
  for (let i = 0; i < WARM_UP + PAGE_LOADS; i++) {
    await browser.page.goto(url, { waitUntil: 'commit' });
    await browser.page.waitForSelector(selector, { state: 'visible', timeout: 30_000 });
    const at = await browser.page.evaluate((k) => window[k] ?? NaN, key);
    if (i >= WARM_UP) samples.push(at);
  }
  return samples;
}

// -------------------------------------------------------------------------------------------------------------

process.chdir(root);
if (serverStale()) await buildServer();
if (DATABASES.includes('pglite') && dashboardStale()) buildDashboard();
const { BerthClient } = await loadClient(root);
const results = [];
const plans = [];

for (const database of DATABASES) {
  const postgres = database === 'postgres' ? await startPostgres() : null;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-pages-'));
  const start = () => startBerth({ roles: database === 'pglite' ? 'manager,web' : 'manager', dataDir, env: postgres ? { BERTH_DATABASE_URL: postgres.url } : {}, admin: ADMIN, nodeArgs: benchNodeArgs() });
  let berth = await start();
  let browser = null;
  const clients = [];
  try {
    const admin = new BerthClient({ endpoint: berth.managerUrl, accessKey: ADMIN.accessKey, secretKey: ADMIN.secretKey });
    clients.push(admin);
    const keys = await createUser(admin, USER);
    let user = new BerthClient({ endpoint: berth.managerUrl, ...keys });
    clients.push(user);
    const seeded = performance.now();
    await queueSessions(admin, user, LIVE, 'bench-live');
    await inParallel(FOLDERS, 8, (i) => user.call('POST', '/folders', { body: { name: `bench-folder-${i}` } }));
    const viaApi = performance.now() - seeded;
    const sql = async (run) => {
      if (postgres) {
        const c = new pg.Client({ connectionString: postgres.url });
        await c.connect();
        try {
          return await run(async (text) => (await c.query(text)).rows);
        } finally {
          await c.end();
        }
      }
      // PGlite is embedded: Berth lets go of it while the bench writes.
      for (const c of clients.splice(0)) c.close();
      await berth.stop();
      const lite = new PGlite(path.join(dataDir, 'db'));
      try {
        return await run(async (text) => (await lite.query(text)).rows);
      } finally {
        await lite.close();
        berth = await start();
        user = new BerthClient({ endpoint: berth.managerUrl, ...keys });
        clients.push(user);
      }
    };
    const inserted = performance.now();
    await sql(async (exec) => {
      await insertEnded(exec, keys.accessKey, ENDED);
      // What autovacuum does for PostgreSQL soon after: dead rows reclaimed, statistics fresh.
      if (VACUUM) await exec('vacuum (analyze)');
    });
    console.log(`\n${database}${VACUUM ? ' (vacuumed and analyzed after seeding)' : ''}: ${LIVE} live sessions and ${FOLDERS} folders made through the API in ${fmt(viaApi / 1000)} s; ${ENDED} ended sessions inserted in ${fmt((performance.now() - inserted) / 1000)} s`);

    const gqlCall = (statuses) => async () => {
      const answer = await user.call('POST', '/admin/gql', { body: listBody(statuses) });
      if (answer.errors || answer.data.compute_session_list.items.length !== 25) throw new Error(`session list: ${JSON.stringify(answer).slice(0, 300)}`);
    };
    const cases = [
      { name: `session list, running tab (${LIVE} live)`, call: gqlCall(LIVE_STATUSES), target: 10 },
      { name: `session list, finished tab (${ENDED} ended)`, call: gqlCall(FINISHED_STATUSES), target: 10 },
      {
        name: `folder list, GET /folders (${FOLDERS})`,
        call: async () => {
          if ((await user.call('GET', '/folders')).length !== FOLDERS) throw new Error('folder list short');
        },
      },
    ];
    for (const c of cases) results.push({ database, name: c.name, times: await timeCalls(c.call), target: c.target });

    if (database === 'pglite') {
      browser = await launchBrowser();
      await signIn(browser.page, berth.webUrl, USER);
      results.push({ database, name: 'sessions page: rows visible in Chromium', times: await timeToVisible(browser, `${berth.webUrl}/sessions`, '[data-testid="session-row"]', '__rowsAt'), target: 400, page: true });
      results.push({ database, name: 'folders page: rows visible in Chromium', times: await timeToVisible(browser, `${berth.webUrl}/folders`, '[data-testid="folder-row"]', '__foldersAt'), target: 400, page: true });
    }
    if (EXPLAIN) {
      await sql(async (exec) => {
        for (const [tab, statuses] of [['running', LIVE_STATUSES], ['finished', FINISHED_STATUSES]]) {
          const statements = listStatements(keys.accessKey, statuses);
          if (tab === 'running') statements.push(lineStatement());
          for (const statement of statements) {
            const rows = await exec(`explain (analyze, costs off, timing off, summary on) ${statement}`);
            plans.push(`-- ${database}, ${tab} tab\n${statement}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
          }
        }
      });
    }
  } finally {
    await browser?.close();
    // The live sessions are only queued (no process), so stopping Berth and removing its data ends them.
    for (const c of clients) c.close();
    await berth.stop();
    postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`\nPages at scale: one user, ${LIVE} live + ${ENDED} ended sessions, ${FOLDERS} folders; ${QUERIES} calls per query case, ${PAGE_LOADS} page loads per page case (after ${WARM_UP} warm-up), one at a time; load average now ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log('| database | case | p50 ms | p95 ms | target p50 |');
console.log('|---|---|---:|---:|---|');
for (const r of results) console.log(`| ${r.database} | ${r.name} | ${fmt(pct(r.times, 50))} | ${fmt(pct(r.times, 95))} | ${r.target ? `≤ ${r.target} ms ${pct(r.times, 50) <= r.target ? 'PASS' : 'MISS'}` : '-'} |`);
console.log('Query cases: the signed call measured end to end by the client (HTTP, auth, GraphQL, the database); page cases: navigation start → first row visible, warm server and browser cache.');
if (plans.length) console.log(`\nEXPLAIN ANALYZE (costs and per-node timing off; the execution time is the database's own):\n\n${plans.join('\n\n')}`);
