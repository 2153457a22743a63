/**
 * `berth restore FILE` (issue 14), into a stopped Berth: the embedded database's data directory
 * (<BERTH_DATA_DIR>/db) must be absent or empty, or the PostgreSQL database of BERTH_DATABASE_URL must hold no
 * tables. The file is verified whole first (./format); the embedded database is unpacked into a scratch directory
 * and renamed into place only once PGlite opened it, and pg_restore runs in one transaction, so a failure leaves
 * nothing behind. Migrations newer than the backup run when Berth next starts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import { migrations } from '../db/migrations';
import { postgresDriver } from '../db/postgres-driver';
import { NotABackup, payloadOf, verifyBackup, type BackupMeta } from './format';
import { runPgTool } from './pg-tools';

export class RestoreRefused extends Error {}

export interface RestoreTarget {
  /** BERTH_DATA_DIR: the embedded database is restored into its `db` directory. */
  dataDir: string;
  /** BERTH_DATABASE_URL: restore into this (empty) PostgreSQL database instead. */
  databaseUrl?: string;
}

export interface RestoreResult {
  meta: BackupMeta;
  database: string;
  /** Rows restored in the main tables, to show the operator what came back. */
  counts: Record<string, number>;
}

const COUNTED = ['users', 'keypairs', 'vfolders', 'session_templates', 'endpoints', 'sessions', 'audit_log'];

function checkMigrations(meta: BackupMeta): void {
  const unknown = meta.migrations.filter((m) => !(m in migrations));
  if (unknown.length) throw new RestoreRefused(`The backup comes from a newer Berth (${meta.berth_version}): this one lacks the migrations ${unknown.join(', ')}. Restore it with that version or newer.`);
}

async function countRows(query: (sql: string) => Promise<number>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of COUNTED) counts[table] = await query(`select count(*)::int as n from ${table}`).catch(() => 0);
  return counts;
}

async function restoreEmbedded(file: string, backup: Awaited<ReturnType<typeof verifyBackup>>, dataDir: string): Promise<RestoreResult> {
  const target = path.join(dataDir, 'db');
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new RestoreRefused(`${target} is not empty: restore only into a stopped Berth whose database directory is absent or empty (move it away first).`);
  }
  const scratch = path.join(dataDir, `db.restoring-${randomBytes(4).toString('hex')}`);
  try {
    const payload = await readFile(file).then((all) => all.subarray(backup.start, backup.start + backup.length));
    const lite = new PGlite(scratch, { loadDataDir: new Blob([payload]) });
    await lite.waitReady;
    const counts = await countRows(async (text) => Number(((await lite.query<{ n: number }>(text)).rows[0]?.n) ?? 0));
    await lite.close();
    if (existsSync(target)) rmSync(target, { recursive: true });
    renameSync(scratch, target);
    return { meta: backup.meta, database: target, counts };
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    if (err instanceof RestoreRefused) throw err;
    throw new RestoreRefused(`The embedded database could not be restored (nothing was changed): ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function restorePostgres(file: string, backup: Awaited<ReturnType<typeof verifyBackup>>, url: string): Promise<RestoreResult> {
  const { Client } = await postgresDriver();
  const client = new Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const tables = await client.query<{ n: number }>(`select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`);
    if (Number(tables.rows[0].n) > 0) {
      throw new RestoreRefused(`The database ${new URL(url).pathname.slice(1)} is not empty: restore only into a stopped Berth's new, empty database.`);
    }
    const { child, done } = runPgTool('pg_restore', url, ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction']);
    child.stdout!.resume();
    await Promise.all([pipeline(payloadOf(file, backup), child.stdin!), done]).catch((err: unknown) => {
      throw new RestoreRefused(`pg_restore failed (nothing was changed): ${err instanceof Error ? err.message : String(err)}`);
    });
    const counts = await countRows(async (text) => Number((await client.query<{ n: number }>(text)).rows[0]?.n ?? 0));
    return { meta: backup.meta, database: new URL(url).pathname.slice(1), counts };
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function restoreBackup(file: string, target: RestoreTarget): Promise<RestoreResult> {
  if (!existsSync(file)) throw new RestoreRefused(`${file} does not exist.`);
  let backup: Awaited<ReturnType<typeof verifyBackup>>;
  try {
    backup = await verifyBackup(file);
  } catch (err) {
    if (err instanceof NotABackup) throw new RestoreRefused(err.message);
    throw err;
  }
  checkMigrations(backup.meta);
  if (target.databaseUrl) {
    if (backup.meta.database !== 'postgres') throw new RestoreRefused('This backup holds an embedded (PGlite) database: restore it with BERTH_DATABASE_URL unset, into BERTH_DATA_DIR.');
    return restorePostgres(file, backup, target.databaseUrl);
  }
  if (backup.meta.database !== 'pglite') throw new RestoreRefused('This backup holds a PostgreSQL database: restore it with BERTH_DATABASE_URL set to a new, empty database.');
  return restoreEmbedded(file, backup, target.dataDir);
}
