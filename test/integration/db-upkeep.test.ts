/**
 * The embedded database's upkeep (server/operations/db-upkeep.ts): a pass vacuums and analyzes the tables, so dead row versions
 * left by status changes are reclaimed and the planner has statistics, and between full passes the tables past
 * autovacuum's thresholds are; on PostgreSQL it leaves the work to autovacuum.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upkeepDueTables, upkeepEmbedded } from '../../server/operations/db-upkeep';
import { startTestBerth, type TestBerth } from '../helpers/berth';

let t: TestBerth;

beforeAll(async () => {
  t = await startTestBerth();
});
afterAll(() => t?.stop());

interface TableStats {
  n_dead_tup: number;
  last_vacuum: Date | null;
  last_analyze: Date | null;
}

async function tableStats(table: string): Promise<TableStats> {
  const { rows } = await sql<TableStats>`select n_dead_tup::int as n_dead_tup, last_vacuum, last_analyze from pg_stat_user_tables where relname = ${table}`.execute(t.app.db);
  return rows[0];
}

describe('embedded database upkeep', () => {
  it('vacuums and analyzes the embedded database as it starts (not only after the first timed pass)', async () => {
    const { rows } = await sql<{ last_vacuum: Date | null; last_analyze: Date | null }>`select last_vacuum, last_analyze from pg_stat_user_tables where relname = 'sessions'`.execute(t.app.db);
    if (t.app.dbKind === 'pglite') expect(rows[0]).toEqual({ last_vacuum: expect.any(Date), last_analyze: expect.any(Date) });
    else expect(rows[0]).toBeDefined();
  });

  it('vacuums and analyzes on PGlite, and leaves PostgreSQL to its autovacuum', async () => {
    // Dead row versions: every user rewritten a few times.
    for (let i = 0; i < 3; i++) await sql`update users set description = ${`rewritten ${i}`}`.execute(t.app.db);
    // A backend flushes its table counters at most once a second: without this, the updates' dead tuples could be
    // counted after the vacuum that removed them (seen on PGlite when the four statements took under a second).
    await sql`select pg_stat_force_next_flush()`.execute(t.app.db);
    const before = await tableStats('users');
    if (t.app.dbKind === 'pglite') expect(before.n_dead_tup).toBeGreaterThan(0);
    await upkeepEmbedded(t.app);
    const after = await tableStats('users');
    if (t.app.dbKind === 'pglite') {
      expect(after.last_vacuum).not.toBeNull();
      expect(after.last_analyze).not.toBeNull();
      expect(after.n_dead_tup).toBe(0);
    } else {
      expect(after.last_vacuum).toEqual(before.last_vacuum);
    }
  });

  it('vacuums a table once its dead rows pass autovacuum\'s threshold, and only such tables', async () => {
    // A table of the test's own, so the live and dead counts are known: 1,000 rows, 600 deleted (past 50 + 20 % of 400).
    await sql`create table upkeep_churn (id int primary key, note text)`.execute(t.app.db);
    await sql`insert into upkeep_churn select g, 'row ' || g from generate_series(1, 1000) g`.execute(t.app.db);
    await upkeepEmbedded(t.app);
    await sql`delete from upkeep_churn where id <= 600`.execute(t.app.db);
    await sql`select pg_stat_force_next_flush()`.execute(t.app.db);
    const done = await upkeepDueTables(t.app);
    if (t.app.dbKind === 'pglite') {
      expect(done).toContainEqual({ relname: 'upkeep_churn', vacuum: true });
      expect(done.map((d) => d.relname)).not.toContain('domains');
      await sql`select pg_stat_force_next_flush()`.execute(t.app.db);
      expect((await tableStats('upkeep_churn')).n_dead_tup).toBe(0);
      // Nothing changed since: nothing is due.
      expect((await upkeepDueTables(t.app)).map((d) => d.relname)).not.toContain('upkeep_churn');
    } else {
      expect(done).toEqual([]);
    }
    await sql`drop table upkeep_churn`.execute(t.app.db);
  });
});
