/**
 * Opens the database: PostgreSQL when a URL is given, otherwise PGlite embedded in the data directory
 * (or in memory, for tests). Both speak the same SQL through Kysely; migrations run on open.
 */
import { mkdirSync } from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { PGliteDialect } from './pglite-dialect';
import { createEmbeddedDatabase, embeddedDatabaseExists } from './create-embedded';
import { migrations } from './migrations';
import { postgresDriver } from './postgres-driver';
import type { Database } from './schema';

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  /** postgres:// URL; when absent PGlite is used. */
  url?: string;
  /** PGlite data directory; when absent (and no url) PGlite runs in memory. */
  dataDir?: string;
  /**
   * In memory only: a data directory dumped by PGlite's dumpDataDir to start from instead of running initdb
   * (seconds of WebAssembly per database; the tests make one migrated template and start every manager from it).
   */
  template?: Blob;
}

/** Shared buffers of the embedded database (PostgreSQL's `shared_buffers` syntax). */
const PGLITE_SHARED_BUFFERS = '16MB';

const INT8_OID = 20;

export interface OpenedDatabase {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

const embedded = new WeakMap<Db, PGlite>();

/** The PGlite instance behind an embedded database (backups dump its data directory); undefined on PostgreSQL. */
export function embeddedDatabase(db: Db): PGlite | undefined {
  return embedded.get(db);
}

export async function openDatabase(options: DatabaseOptions): Promise<OpenedDatabase> {
  let opened: OpenedDatabase;
  if (options.url) {
    const { Pool, types } = await postgresDriver();
    const pool = new Pool({
      connectionString: options.url,
      max: 10,
      // Byte counts live in int8 columns; they stay far below 2^53, so plain numbers are safe and match PGlite.
      types: { getTypeParser: ((oid: number, format?: 'text') => (oid === INT8_OID ? Number : types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
    });
    // An idle client can lose its connection (server restart, admin termination): the pool replaces it, and
    // the error must not become an uncaught exception that stops the manager.
    pool.on('error', (err) => console.error('database connection lost:', err.message));
    // A checked-out client whose server goes away (a restart, pg_ctl stop) emits the error too: its query fails,
    // and the event must not be an uncaught exception either.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    opened = { db, kind: 'postgres', close: () => db.destroy() };
  } else {
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true });
      if (!embeddedDatabaseExists(options.dataDir)) await createEmbeddedDatabase(options.dataDir);
    }
    // One options object: PGlite's two-argument form drops its options when the data directory is undefined, so an
    // in-memory database ran with none of these (JavaScript numbers for int8, the smaller shared buffers).
    const lite = new PGlite({
      dataDir: options.dataDir,
      loadDataDir: options.dataDir ? undefined : options.template,
      parsers: { [INT8_OID]: (v: string) => Number(v) },
      // PostgreSQL's default 128 MB of shared buffers would be resident in this process; Berth's tables are small
      // and the data directory's files sit in the OS page cache anyway (measured: 340 → 220 MB RSS for PGlite alone).
      postgresqlconf: [`shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    });
    await lite.waitReady;
    const db = new Kysely<Database>({ dialect: new PGliteDialect(lite) });
    embedded.set(db, lite);
    opened = {
      db,
      kind: 'pglite',
      close: async () => {
        await db.destroy();
        await lite.close();
      },
    };
  }
  await migrate(opened.db);
  return opened;
}

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

export async function migrate(db: Db): Promise<void> {
  // Unordered: migrations written on parallel branches may land in either order.
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider(), allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
}

/** Encodes a value for a jsonb column (both drivers take JSON text and let the server parse it). */
export function json<T>(value: T): string {
  return JSON.stringify(value);
}

export type { Database } from './schema';
