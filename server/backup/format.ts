/**
 * A Berth backup file: a magic line, one line of JSON saying what it holds, the database's own snapshot (PGlite's
 * data directory as a gzipped tar, or pg_dump's custom format), then a fixed-size trailer with the payload's length
 * and SHA-256. A file without the magic is not a backup; one without a valid trailer is cut short or altered. Both
 * are refused before anything is touched.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { PassThrough, Transform, type Readable } from 'node:stream';

export const MAGIC = 'BERTH-BACKUP 1\n';
const TRAILER_TAG = '\nBERTH-BACKUP-END ';
/** Tag, 64 hex digits, a space, 20 decimal digits, a newline. */
export const TRAILER_BYTES = TRAILER_TAG.length + 64 + 1 + 20 + 1;
const MAX_META_BYTES = 64 * 1024;

export interface BackupMeta {
  format: 'berth-backup';
  version: 1;
  database: 'pglite' | 'postgres';
  created_at: string;
  berth_version: string;
  /** The migrations applied to the database it was taken from. */
  migrations: string[];
}

/**
 * Frames a payload stream as a backup file, hashing it on the way. The trailer is written only once `complete`
 * resolves (the dump's process exited cleanly): a dump that fails leaves a file without an end, which no restore
 * accepts.
 */
export function frameBackup(meta: BackupMeta, payload: Readable, complete: Promise<void> = Promise.resolve()): Readable {
  const out = new PassThrough();
  const hash = createHash('sha256');
  let length = 0;
  out.write(MAGIC + JSON.stringify(meta) + '\n');
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      length += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      complete.then(
        () => done(null, Buffer.from(`${TRAILER_TAG}${hash.digest('hex')} ${String(length).padStart(20, '0')}\n`)),
        (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
      );
    },
  });
  payload.on('error', (err) => out.destroy(err));
  counted.on('error', (err) => out.destroy(err));
  payload.pipe(counted).pipe(out);
  return out;
}

export class NotABackup extends Error {}

export interface VerifiedBackup {
  meta: BackupMeta;
  /** Where the payload starts and how long it is, in the file. */
  start: number;
  length: number;
}

/** Checks a file is a whole Berth backup (magic, metadata, trailer, hash); throws NotABackup saying why not. */
export async function verifyBackup(file: string): Promise<VerifiedBackup> {
  const handle = await open(file, 'r');
  let meta: BackupMeta;
  let start: number;
  let length: number;
  let digest: string;
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, MAGIC.length + MAX_META_BYTES));
    await handle.read(head, 0, head.length, 0);
    if (head.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) throw new NotABackup(`${file} is not a Berth backup (it does not start with "${MAGIC.trim()}").`);
    const metaEnd = head.indexOf(0x0a, MAGIC.length);
    if (metaEnd < 0) throw new NotABackup(`${file} is not a Berth backup (its description is missing).`);
    try {
      meta = JSON.parse(head.subarray(MAGIC.length, metaEnd).toString('utf8')) as BackupMeta;
    } catch {
      throw new NotABackup(`${file} is not a Berth backup (its description is not JSON).`);
    }
    if (meta?.format !== 'berth-backup' || meta.version !== 1 || !['pglite', 'postgres'].includes(meta.database) || !Array.isArray(meta.migrations)) {
      throw new NotABackup(`${file} is not a Berth backup this version reads (format ${String(meta?.format)}, version ${String(meta?.version)}).`);
    }
    start = metaEnd + 1;
    const trailer = Buffer.alloc(TRAILER_BYTES);
    if (size - start < TRAILER_BYTES) throw new NotABackup(`${file} is cut short: the backup has no end.`);
    await handle.read(trailer, 0, TRAILER_BYTES, size - TRAILER_BYTES);
    const m = /^\nBERTH-BACKUP-END ([0-9a-f]{64}) (\d{20})\n$/.exec(trailer.toString('latin1'));
    length = size - TRAILER_BYTES - start;
    if (!m) throw new NotABackup(`${file} is cut short or altered: the backup has no valid end.`);
    if (Number(m[2]) !== length) throw new NotABackup(`${file} is cut short or altered: ${length} bytes of data where ${Number(m[2])} were written.`);
    digest = m[1];
  } finally {
    await handle.close();
  }
  const hash = createHash('sha256');
  if (length > 0) for await (const chunk of createReadStream(file, { start, end: start + length - 1 })) hash.update(chunk as Buffer);
  if (hash.digest('hex') !== digest) throw new NotABackup(`${file} is altered: its data does not match the checksum written with it.`);
  return { meta, start, length };
}

/** The payload of a verified backup, streamed from the file. */
export function payloadOf(file: string, backup: VerifiedBackup): Readable {
  return createReadStream(file, { start: backup.start, end: backup.start + backup.length - 1 });
}
