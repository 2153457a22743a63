/**
 * Upkeep of the embedded database (issue 18, docs/query-plans.md). PostgreSQL's autovacuum reclaims dead row
 * versions and refreshes the planner's statistics on its own; PGlite runs PostgreSQL without it, so nothing did:
 * every status change of a session left a dead row behind for good, and lists were planned for tables as they were
 * at creation (the finished sessions tab at 10,000 sessions: 60 ms without, 19 ms with). Berth does it instead, as
 * it starts and every UPKEEP_MS: one VACUUM (ANALYZE), ~0.2 s on that database, holding the one connection
 * meanwhile. A no-op on PostgreSQL.
 */
import { sql } from 'kysely';
import type { App } from '../app';

const UPKEEP_MS = 10 * 60_000;

/** One pass: VACUUM (ANALYZE) of every table of the embedded database. */
export async function upkeepEmbedded(app: App): Promise<void> {
  if (app.dbKind !== 'pglite') return;
  const started = performance.now();
  await sql`vacuum (analyze)`.execute(app.db);
  app.log.debug({ ms: Math.round(performance.now() - started) }, 'embedded database vacuumed and analyzed');
}

/**
 * Runs a pass at once and then every UPKEEP_MS while the process lives. At once, because after a restart, a restore
 * or an upgrade the tables are as the last process left them, up to UPKEEP_MS of dead rows and pages whose rows
 * index-only scans cannot trust without reading the table: the finished tab's count over 10,000 sessions took
 * 10.4 ms with statistics alone and 3.3 ms vacuumed (docs/query-plans.md). Answers how to stop.
 */
export function startEmbeddedUpkeep(app: App): () => void {
  if (app.dbKind !== 'pglite') return () => undefined;
  let running = false;
  const pass = () => {
    if (running) return;
    running = true;
    upkeepEmbedded(app)
      .catch((err: unknown) => app.log.warn({ err }, 'embedded database upkeep failed'))
      .finally(() => (running = false));
  };
  pass();
  const timer = setInterval(pass, UPKEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}
