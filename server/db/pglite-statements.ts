/**
 * Named prepared statements for PGlite, one per distinct SQL text (docs/architecture.md, "The embedded database's
 * statements").
 *
 * PGlite's `query` parses, describes, binds and executes an unnamed statement on every call, so PostgreSQL plans the
 * query every time, and planning in WebAssembly is slow: the folder lookup every storage transfer makes (a primary
 * key and four left joins) took 3.9 ms, of which 0.4 ms is running it. A named statement is parsed once; from its
 * sixth run PostgreSQL keeps a generic plan when it costs no more than the custom ones (plan_cache_mode auto), and the
 * run is one round trip into WebAssembly (bind, describe, execute, sync) instead of six.
 *
 * Parameterless SQL (migrations, BEGIN/COMMIT, several statements at once) keeps PGlite's simple protocol. Values and
 * rows go through PGlite's own serializers and parsers, chosen by the types PostgreSQL describes, as `query` does.
 * At most `capacity` statements are kept; the least recently used is closed first. A statement whose result type
 * changed under it (DDL after it was prepared) is forgotten and, outside a transaction, prepared again.
 */
import { messages as pgMessages, parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import { readPlainResults } from './pglite-results';

const { serialize } = protocol;

export const STATEMENT_CACHE_SIZE = 256;

/** SQLSTATE 0A000 with this message: a cached plan's columns no longer match the tables. */
const RESULT_TYPE_CHANGED = 'cached plan must not change result type';

interface Prepared {
  name: string;
  /** The parameters' type OIDs, as PostgreSQL inferred them. */
  types: number[];
}

type BackendMessage = Parameters<typeof parse.parseResults>[0][number];

export class PreparedStatements {
  private readonly known = new Map<string, Prepared>();
  /** Evicted statements, closed in the next round trip. */
  private closing: string[] = [];
  private counter = 0;

  constructor(
    private readonly db: PGlite,
    private readonly capacity = STATEMENT_CACHE_SIZE,
  ) {}

  /** Runs `sql` with `params` on its named statement; the same answer as `PGlite.query`. */
  async query<R>(sql: string, params: readonly unknown[]): Promise<Results<R>> {
    try {
      return await this.run<R>(sql, params);
    } catch (err) {
      if ((err as Error).message !== RESULT_TYPE_CHANGED) throw withQuery(err, sql, params);
      this.forget(sql);
      if (this.db.isInTransaction()) throw withQuery(err, sql, params);
      return await this.run<R>(sql, params).catch((again) => {
        throw withQuery(again, sql, params);
      });
    } finally {
      await this.db.syncToFs();
    }
  }

  /** Statements kept now (tests). */
  get size(): number {
    return this.known.size;
  }

  private run<R>(sql: string, params: readonly unknown[]): Promise<Results<R>> {
    return this.db.runExclusive(async () => {
      const statement = this.known.get(sql) ?? (await this.prepare(sql));
      // Most recently used last: the map's first entry is the one to evict.
      this.known.delete(sql);
      this.known.set(sql, statement);
      const values = params.map((value, i) => this.serialized(value, statement.types[i]));
      const raw = await this.rawRoundTrip([serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({})]);
      return readPlainResults<R>(raw, this.db.parsers) ?? this.parsedResults<R>(raw);
    });
  }

  /** Parses `sql` under a new name and learns its parameters' types; kept only once that succeeded. */
  private async prepare(sql: string): Promise<Prepared> {
    const name = `berth_${(++this.counter).toString(36)}`;
    const messages = await this.roundTrip([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name })]);
    const prepared = { name, types: parse.parseDescribeStatementResults(messages) };
    this.known.set(sql, prepared);
    while (this.known.size > this.capacity) this.forget(this.known.keys().next().value as string);
    return prepared;
  }

  private forget(sql: string): void {
    const prepared = this.known.get(sql);
    if (!prepared) return;
    this.known.delete(sql);
    this.closing.push(prepared.name);
  }

  /** One call into PGlite, its answer parsed by PGlite (which throws the first error it answers). */
  private roundTrip(messages: Uint8Array[]): Promise<BackendMessage[]> {
    return this.db.execProtocolStream(this.withCloses(messages), { syncToFs: false });
  }

  /**
   * One call into PGlite, its answer's bytes as they are (`execProtocolRaw` would also parse them with PGlite's
   * parser). The chunks handed over are views of PGlite's memory, so they are copied.
   */
  private async rawRoundTrip(messages: Uint8Array[]): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    await this.db.execProtocolRawStream(this.withCloses(messages), { syncToFs: false, onRawData: (chunk) => chunks.push(chunk.slice()) });
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }

  /** Pending closes, then `messages`, then Sync (which also ends an error's skipping). */
  private withCloses(messages: Uint8Array[]): Uint8Array {
    const closes = this.closing.map((name) => serialize.close({ type: 'S', name }));
    this.closing = [];
    return Buffer.concat([...closes, ...messages, serialize.sync()]);
  }

  /**
   * An answer ./pglite-results does not read (an error, a notice) parsed by PGlite's parser, as `execProtocolStream`
   * would have: its first error thrown, else the first result. (A notification would not reach PGlite's listeners
   * this way; the embedded database has none: replicas, which LISTEN, run on PostgreSQL.)
   */
  private parsedResults<R>(raw: Uint8Array): Results<R> {
    const messages: BackendMessage[] = [];
    new protocol.Parser().parse(raw, (message) => messages.push(message as BackendMessage));
    const error = messages.find((m) => m instanceof pgMessages.DatabaseError);
    if (error) throw error;
    return parse.parseResults(messages, this.db.parsers)[0] as Results<R>;
  }

  /** As PGlite's `query`: null stays null; otherwise the serializer of the parameter's type, else its text. */
  private serialized(value: unknown, type: number): string | null {
    if (value === null || value === undefined) return null;
    const serializer = this.db.serializers[type];
    return serializer ? serializer(value) : String(value);
  }
}

/** PGlite's errors carry the query that failed; so do these. */
function withQuery(err: unknown, sql: string, params: readonly unknown[]): unknown {
  if (err && typeof err === 'object') Object.assign(err, { query: sql, params });
  return err;
}
