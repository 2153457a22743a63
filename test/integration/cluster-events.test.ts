/**
 * Events between replicas (server/cluster/notify.ts) on a real PostgreSQL: two clusters in this process stand for
 * two replicas. An event reaches the other replica once; when the LISTEN connections are cut (a server restart, a
 * network cut: here pg_terminate_backend), events raised meanwhile arrive after the reconnect, and none twice.
 * On PGlite there is one process and events are delivered in process (covered by every SSE test).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pino from 'pino';
import { openDatabase, type OpenedDatabase } from '../../server/db';
import { PgCluster } from '../../server/cluster/notify';
import { createTestDatabase } from '../helpers/berth';

const onPostgres = process.env.BERTH_TEST_DB === 'postgres';

describe.skipIf(!onPostgres)('events between replicas', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let opened: OpenedDatabase;
  let a: PgCluster;
  let b: PgCluster;
  const atA: unknown[] = [];
  const atB: unknown[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await openDatabase({ url: database.url });
    const log = pino({ level: 'silent' });
    a = await PgCluster.open(opened.db, database.url, log);
    b = await PgCluster.open(opened.db, database.url, log);
    a.onEvent((kind, body) => atA.push({ kind, body }));
    b.onEvent((kind, body) => atB.push({ kind, body }));
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await opened?.close();
    await database?.drop();
  });

  async function until(what: string, done: () => boolean): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('delivers an event at once where it was raised and once on the other replica, in order', async () => {
    for (let i = 0; i < 5; i++) a.publish('status', { n: i });
    // Here: synchronously, as the in-process bus always did.
    expect(atA).toEqual([0, 1, 2, 3, 4].map((n) => ({ kind: 'status', body: { n } })));
    await until('five events on b', () => atB.length >= 5);
    await a.flush();
    expect(atB).toEqual([0, 1, 2, 3, 4].map((n) => ({ kind: 'status', body: { n } })));
  });

  it('carries an event too big for NOTIFY by its id', async () => {
    const big = { text: 'x'.repeat(20_000) };
    a.publish('task', big);
    await until('the big event on b', () => atB.some((e: any) => e.kind === 'task'));
    expect(atB.filter((e: any) => e.kind === 'task')).toEqual([{ kind: 'task', body: big }]);
  });

  it('catches up after its LISTEN connection was cut: nothing lost, nothing twice', async () => {
    atB.length = 0;
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name like 'berth-events pid=%' and datname = current_database()`.execute(opened.db);
    for (let i = 0; i < 3; i++) a.publish('session', { during: i });
    await a.flush();
    await until('the events raised while b was cut off', () => atB.length >= 3);
    // Later events still flow, and the catch-up (which re-reads the seconds before the cut too) replayed nothing:
    // anything replayed would have come before this event.
    a.publish('session', { after: true });
    await until('the event after the reconnect', () => atB.some((e: any) => e.body.after));
    expect(atB).toEqual([...[0, 1, 2].map((i) => ({ kind: 'session', body: { during: i } })), { kind: 'session', body: { after: true } }]);
  });

  it('sends signals to the other replicas only', async () => {
    const gotA: unknown[] = [];
    const gotB: unknown[] = [];
    a.onSignal('config', (key) => gotA.push(key));
    b.onSignal('config', (key) => gotB.push(key));
    a.signal('config', 'manager/status');
    await until('the signal on b', () => gotB.length === 1);
    expect(gotB).toEqual(['manager/status']);
    expect(gotA).toEqual([]);
  });
});
