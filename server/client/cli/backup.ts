/**
 * `berth backup FILE` asks the running manager for a backup (superadmin; it streams while Berth serves) and keeps it
 * only once it is whole. `berth restore FILE` runs here, against the database settings of a stopped Berth
 * (BERTH_DATA_DIR, BERTH_DATABASE_URL), without a manager.
 */
import { createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { ApiError } from '../client';
import { signedClient, UsageError } from './credentials';

export async function backup(args: string[]): Promise<unknown> {
  const [file] = args;
  if (!file) throw new UsageError('backup needs a FILE to write');
  if (existsSync(file)) throw new UsageError(`${file} exists; name a new file`);
  const res = await signedClient().open('POST', '/manager/backup');
  if (res.statusCode !== 200) {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let problem: Record<string, unknown> = { detail: text };
    try {
      problem = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: keep the text
    }
    throw new ApiError(res.statusCode ?? 0, problem);
  }
  const partial = `${file}.partial`;
  try {
    // The backup holds every password hash and secret key: readable by its owner only.
    await pipeline(res, createWriteStream(partial, { mode: 0o600, flags: 'wx' }));
    const { verifyBackup } = await import('../../backup/format');
    const { meta } = await verifyBackup(partial);
    renameSync(partial, file);
    return { file, database: meta.database, created_at: meta.created_at, berth_version: meta.berth_version, bytes: statSync(file).size };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

export async function restore(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'data-dir': { type: 'string' } } });
  const [file] = positionals;
  if (!file) throw new UsageError('restore needs the backup FILE');
  const { readSettings } = await import('../../config/env');
  const { restoreBackup } = await import('../../backup/restore');
  const settings = readSettings();
  const result = await restoreBackup(file, { dataDir: values['data-dir'] ?? settings.dataDir, databaseUrl: settings.databaseUrl });
  return { restored: true, into: result.database, database: result.meta.database, backup_created_at: result.meta.created_at, counts: result.counts };
}
