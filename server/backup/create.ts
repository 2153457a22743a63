/**
 * `berth backup` (issue 14): a consistent snapshot of the whole database while Berth keeps serving. PGlite is
 * checkpointed and its data directory dumped while this process holds its one connection, so no transaction is
 * half in it; PostgreSQL is dumped by pg_dump in its custom format, from one snapshot.
 */
import { PassThrough, Readable } from 'node:stream';
import { sql } from 'kysely';
import type { App } from '../app';
import { embeddedDatabase } from '../db';
import { BERTH_VERSION } from '../version';
import { frameBackup, type BackupMeta } from './format';
import { runPgTool } from './pg-tools';

async function appliedMigrations(app: App): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(app.db);
  return rows.rows.map((r) => r.name);
}

export async function createBackup(app: App): Promise<{ meta: BackupMeta; stream: Readable }> {
  const meta: BackupMeta = {
    format: 'berth-backup',
    version: 1,
    database: app.dbKind,
    created_at: new Date().toISOString(),
    berth_version: BERTH_VERSION,
    migrations: await appliedMigrations(app),
  };
  const lite = embeddedDatabase(app.db);
  if (lite) {
    const dump = await app.db.connection().execute(async (conn) => {
      await sql`checkpoint`.execute(conn);
      return lite.dumpDataDir('gzip');
    });
    return { meta, stream: frameBackup(meta, Readable.from(Buffer.from(await dump.arrayBuffer()))) };
  }
  const { child, done } = runPgTool('pg_dump', app.settings.databaseUrl!, ['--format=custom', '--no-owner', '--no-privileges']);
  child.stdin!.end();
  const payload = new PassThrough();
  child.stdout!.pipe(payload);
  done.catch((err: unknown) => app.log.error({ err }, 'backup failed'));
  const stream = frameBackup(meta, payload, done);
  // A client that hangs up must not leave pg_dump blocked on a pipe nobody reads.
  stream.once('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  return { meta, stream };
}
