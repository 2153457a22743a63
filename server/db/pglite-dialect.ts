/**
 * A Kysely dialect over PGlite (PostgreSQL in WASM). PGlite is one connection, so the driver hands it out
 * to one caller at a time: a transaction holds it from BEGIN to COMMIT and other queries wait their turn.
 * SQL generation, introspection and the adapter are Kysely's PostgreSQL ones, so both backends run the same SQL.
 */
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { AnyKysely } from './untyped';
import { PreparedStatements } from './pglite-statements';

class PGliteConnection implements DatabaseConnection {
  private readonly statements: PreparedStatements;

  constructor(private readonly db: PGlite) {
    this.statements = new PreparedStatements(db);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Parameterless SQL may hold several statements (migrations): the simple protocol runs them all.
    const result = query.parameters.length
      ? await this.statements.query<R>(query.sql, query.parameters)
      : ((await this.db.exec(query.sql)).at(-1) as unknown as { rows: R[]; affectedRows?: number });
    return {
      rows: result.rows,
      numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite dialect does not stream query results');
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private queue: Promise<void> = Promise.resolve();
  private release: (() => void) | null = null;

  constructor(db: PGlite) {
    this.connection = new PGliteConnection(db);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.release = release;
    return this.connection;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await conn.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = null;
    release?.();
  }

  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  constructor(private readonly db: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver() {
    return new PGliteDriver(this.db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: AnyKysely) {
    return new PostgresIntrospector(db);
  }
}
