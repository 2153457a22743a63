/**
 * Upkeep of the embedded database (issue 18, docs/query-plans.md). PostgreSQL's autovacuum reclaims dead row
 * versions and refreshes the planner's statistics on its own; PGlite runs PostgreSQL without it, so nothing did:
 * every status change of a session left a dead row behind for good, and lists were planned for tables as they were
 * at creation (the finished sessions tab at 10,000 sessions: 60 ms without, 19 ms with). Berth does it instead:
 * one VACUUM (ANALYZE) of every table as it starts, then autovacuum's own rule, checked every CHECK_MS: a table is
 * vacuumed once its dead rows pass 50 + 20 % of its live ones, analyzed once its changes since the last analyze
 * pass 50 + 10 % (PostgreSQL's default thresholds). A fixed 10-minute pass was not enough: the scheduler rewrites
 * every waiting session's verdict on each periodic pass, and the queue bench's 20,000 waiting sessions grew the
 * sessions table to 259 MB of heap for 19 MB of rows, past the 16 MB of shared buffers, until 64 % of the manager's
 * CPU went to reading pages back. Each statement holds the one connection while it runs. A no-op on PostgreSQL.
 */
import { sql } from 'kysely';
import type { App } from '../app';

const CHECK_MS = 10_000;
/** PostgreSQL's defaults: autovacuum_vacuum_threshold and _scale_factor, autovacuum_analyze_threshold and _scale_factor. */
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;

/** One full pass: VACUUM (ANALYZE) of every table of the embedded database. */
export async function upkeepEmbedded(app: App): Promise<void> {
  if (app.dbKind !== 'pglite') return;
  const started = performance.now();
  await sql`vacuum (analyze)`.execute(app.db);
  app.log.debug({ ms: Math.round(performance.now() - started) }, 'embedded database vacuumed and analyzed');
}

interface DueTable {
  relname: string;
  vacuum: boolean;
}

/**
 * The tables past autovacuum's thresholds, each vacuumed (and analyzed) or only analyzed. A backend publishes its
 * table counters at most once a second, so a change is seen here up to a second after it. Answers what it did.
 */
export async function upkeepDueTables(app: App): Promise<DueTable[]> {
  if (app.dbKind !== 'pglite') return [];
  const { rows } = await sql<DueTable>`
    select relname, vacuum from (
      select relname,
        n_dead_tup > ${sql.lit(VACUUM_BASE)} + ${sql.lit(VACUUM_SCALE)} * n_live_tup as vacuum,
        n_mod_since_analyze > ${sql.lit(ANALYZE_BASE)} + ${sql.lit(ANALYZE_SCALE)} * n_live_tup as analyze_due
      from pg_stat_user_tables where schemaname = 'public'
    ) as due
    where vacuum or analyze_due
  `.execute(app.db);
  for (const { relname, vacuum } of rows) {
    const started = performance.now();
    await (vacuum ? sql`vacuum (analyze) ${sql.table(relname)}` : sql`analyze ${sql.table(relname)}`).execute(app.db);
    app.log.debug({ table: relname, vacuum, ms: Math.round(performance.now() - started) }, 'embedded table upkept');
  }
  return rows;
}

/**
 * Runs a full pass at once and the threshold check every CHECK_MS while the process lives. At once, because after a
 * restart, a restore or an upgrade the tables are as the last process left them, dead rows and pages whose rows
 * index-only scans cannot trust without reading the table: the finished tab's count over 10,000 sessions took
 * 10.4 ms with statistics alone and 3.3 ms vacuumed (docs/query-plans.md). Answers how to stop.
 */
export function startEmbeddedUpkeep(app: App): () => void {
  if (app.dbKind !== 'pglite') return () => undefined;
  let running = false;
  const run = (pass: () => Promise<unknown>) => {
    if (running) return;
    running = true;
    pass()
      .catch((err: unknown) => app.log.warn({ err }, 'embedded database upkeep failed'))
      .finally(() => (running = false));
  };
  run(() => upkeepEmbedded(app));
  const timer = setInterval(() => run(() => upkeepDueTables(app)), CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
