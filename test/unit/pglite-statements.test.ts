// The PGlite dialect's named prepared statements (server/db/pglite-statements.ts): the same answers as PGlite's
// own `query`, one statement per SQL text, bounded, and correct across errors, rollbacks and DDL.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PreparedStatements } from '../../server/db/pglite-statements';
import { embeddedDatabase, openDatabase } from '../../server/db/index';
import { sql } from 'kysely';

let db: PGlite;

beforeAll(async () => {
  db = new PGlite();
  await db.waitReady;
  await db.exec(`
    create table things (id uuid primary key, n int8, at timestamptz, doc jsonb, ok boolean, tags text[], note text);
    create table owners (thing_id uuid references things(id), name text);
  `);
}, 60_000);

afterAll(() => db.close());

beforeEach(async () => {
  await db.exec('deallocate all; delete from owners; delete from things;');
});

const ID = '7d843ccd-0e17-4622-a389-926561582139';
const AT = new Date('2026-11-27T12:00:00.000Z');

async function preparedNames(): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('select name from pg_prepared_statements order by name');
  return rows.map((r) => r.name);
}

describe('PreparedStatements', () => {
  it('answers what PGlite.query answers, for every kind of parameter and column', async () => {
    const statements = new PreparedStatements(db);
    const insert = 'insert into things (id, n, at, doc, ok, tags, note) values ($1, $2, $3, $4, $5, $6, $7)';
    const inserted = await statements.query(insert, [ID, 2 ** 40, AT, { a: [1, 'two'] }, true, ['x', 'y,z'], null]);
    expect(inserted.affectedRows).toBe(1);
    await statements.query('insert into owners (thing_id, name) values ($1, $2)', [ID, 'ada']);
    const select = 'select t.*, o.name from things t left join owners o on o.thing_id = t.id where t.id = $1 and t.tags && $2';
    const mine = await statements.query(select, [ID, ['y,z']]);
    const theirs = await db.query(select, [ID, ['y,z']]);
    expect(mine.rows).toEqual(theirs.rows);
    expect(mine.rows).toEqual([{ id: ID, n: 2 ** 40, at: AT, doc: { a: [1, 'two'] }, ok: true, tags: ['x', 'y,z'], note: null, name: 'ada' }]);
    expect(mine.fields.map((f) => f.name)).toEqual(theirs.fields.map((f) => f.name));
  });

  it("reads rows, counts and commands from PGlite's bytes exactly as PGlite.query does", async () => {
    const statements = new PreparedStatements(db);
    await db.exec('create table if not exists mirror (like things)');
    await db.exec('delete from mirror');
    const notes = ['ascii', 'ünïcødé ✓ 日本語 🚀', '', null, 'tab\tand\nnewline'];
    for (const [i, note] of notes.entries()) {
      const values = [`7d843ccd-0e17-4622-a389-92656158210${i}`, i, note];
      const mine = await statements.query('insert into things (id, n, note) values ($1, $2, $3)', values);
      const theirs = await db.query('insert into mirror (id, n, note) values ($1, $2, $3)', values);
      expect(mine).toEqual(theirs);
    }
    const cases: [string, unknown[]][] = [
      ['select id, n, note, note is null as missing from TABLE order by n', []],
      ['select id, n from TABLE where n > $1 order by n', [100]], // no rows: the columns are still described
      ['update TABLE set note = $1 where n < $2', ['changed', 3]],
      ['delete from TABLE where n = $1', [4]],
      ['select n, note from TABLE order by n', []],
      ['select $1::numeric as big, $2::float8 as f, $3::int2[] as small, $4::json as j, $5::bytea as b', ['12345678901234567890.5', 1.5, [1, 2], { k: 'v' }, Buffer.from([0, 255])]],
    ];
    for (const [text, params] of cases) {
      const mine = await statements.query(text.replace('TABLE', 'things'), params);
      const theirs = await db.query(text.replace('TABLE', 'mirror'), params);
      expect(mine).toEqual(theirs);
    }
    await db.exec('drop table mirror');
  });

  it('answers through PGlite\'s parser what it does not read itself: a notice, then the rows', async () => {
    const statements = new PreparedStatements(db);
    await db.exec(`create or replace function noisy(x int) returns int language plpgsql as $$ begin raise notice 'counting %', x; return x + 1; end $$`);
    const { rows } = await statements.query<{ v: number }>('select noisy($1) as v', [41]);
    expect(rows).toEqual([{ v: 42 }]);
  });

  it('prepares each SQL text once and runs it again by name', async () => {
    const statements = new PreparedStatements(db);
    for (let i = 0; i < 8; i++) await statements.query('select $1::int + 1 as next', [i]);
    const { rows } = await statements.query<{ next: number }>('select $1::int + 1 as next', [41]);
    expect(rows).toEqual([{ next: 42 }]);
    expect(statements.size).toBe(1);
    expect(await preparedNames()).toHaveLength(1);
  });

  it('keeps at most its capacity, closing the least recently used', async () => {
    const statements = new PreparedStatements(db, 2);
    await statements.query('select $1::int as a', [1]);
    await statements.query('select $1::int as b', [2]);
    await statements.query('select $1::int as a', [3]); // now b is the least recently used
    await statements.query('select $1::int as c', [4]);
    expect(statements.size).toBe(2);
    await statements.query('select $1::int as a', [5]); // the round trip that closes b
    expect(await preparedNames()).toHaveLength(2);
    const again = await statements.query<{ b: number }>('select $1::int as b', [6]);
    expect(again.rows).toEqual([{ b: 6 }]);
  });

  it('throws a statement that does not parse, with its code and query, keeps nothing, and serves on', async () => {
    const statements = new PreparedStatements(db);
    const error = await statements.query('selec $1', [1]).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: '42601', query: 'selec $1', params: [1] });
    expect(statements.size).toBe(0);
    expect(await preparedNames()).toEqual([]);
    expect((await statements.query('select $1::text as x', ['ok'])).rows).toEqual([{ x: 'ok' }]);
  });

  it('keeps the statement when one run fails on its values', async () => {
    const statements = new PreparedStatements(db);
    const sql = 'select count(*)::int as n from things where id = $1';
    const error = await statements.query(sql, ['not-a-uuid']).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: '22P02' });
    expect((await statements.query(sql, [ID])).rows).toEqual([{ n: 0 }]);
    expect(statements.size).toBe(1);
  });

  it('keeps a statement prepared in a transaction that rolled back', async () => {
    const statements = new PreparedStatements(db);
    const sql = 'select count(*)::int as n from things where n > $1';
    await db.exec('begin');
    await statements.query(sql, [0]);
    await db.exec('rollback');
    expect((await statements.query(sql, [0])).rows).toEqual([{ n: 0 }]);
  });

  it('prepares again a statement whose table changed shape, and answers the new columns', async () => {
    const statements = new PreparedStatements(db);
    await db.exec('create table shapes (id int primary key)');
    try {
      await db.query('insert into shapes values (1)');
      const sql = 'select * from shapes where id = $1';
      expect((await statements.query(sql, [1])).rows).toEqual([{ id: 1 }]);
      await db.exec("alter table shapes add column label text default 'one'");
      expect((await statements.query(sql, [1])).rows).toEqual([{ id: 1, label: 'one' }]);
    } finally {
      await db.exec('drop table shapes');
    }
  });

  it('inside a transaction, fails the changed statement once and forgets it', async () => {
    const statements = new PreparedStatements(db);
    await db.exec('create table shapes (id int primary key)');
    try {
      const sql = 'select * from shapes where id = $1';
      await statements.query(sql, [1]);
      await db.exec('alter table shapes add column label text');
      await db.exec('begin');
      await expect(statements.query(sql, [1])).rejects.toThrow('cached plan must not change result type');
      await db.exec('rollback');
      expect(statements.size).toBe(0);
      expect((await statements.query(sql, [1])).fields.map((f) => f.name)).toEqual(['id', 'label']);
    } finally {
      await db.exec('drop table shapes');
    }
  });
});

describe('the embedded database', () => {
  it("runs Kysely's queries with parameters on named statements, and parameterless SQL without one", async () => {
    const opened = await openDatabase({});
    try {
      const lite = embeddedDatabase(opened.db)!;
      await sql`create table notes (id int primary key, body text)`.execute(opened.db);
      await opened.db.insertInto('notes' as never).values({ id: 1, body: 'kept\u0001as written' } as never).execute();
      const rows = await opened.db.selectFrom('notes' as never).selectAll().where('id' as never, '=', 1 as never).execute();
      expect(rows).toEqual([{ id: 1, body: 'kept\u0001as written' }]);
      const { rows: statements } = await lite.query<{ statement: string }>('select statement from pg_prepared_statements order by statement');
      const texts = statements.map((s) => s.statement);
      expect(texts).toContain('insert into "notes" ("id", "body") values ($1, $2)');
      expect(texts).toContain('select * from "notes" where "id" = $1');
      expect(texts.filter((text) => text.includes('create table'))).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 60_000);
});
