/**
 * Creates a new embedded (PGlite) data directory in a short-lived child process. PGlite's initdb runs in a
 * WebAssembly instance of its own; in Berth's process its ≈400 MB would stay resident long after it is garbage
 * (freed native memory is seldom given back to the OS), so a first start would idle at twice the memory of every
 * later one. A child process gives it all back when it exits.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const CREATE = `
const { PGlite } = require(process.argv[1]);
PGlite.create(process.argv[2]).then((db) => db.close()).catch((err) => { console.error(err); process.exit(1); });
`;

/** True once `dataDir` holds a database (PostgreSQL writes PG_VERSION into every data directory it creates). */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return existsSync(path.join(dataDir, 'PG_VERSION'));
}

export function createEmbeddedDatabase(dataDir: string): Promise<void> {
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', CREATE, pglite, dataDir], { timeout: 120_000 }, (err, _stdout, stderr) =>
      err ? reject(new Error(`could not create the embedded database in ${dataDir}: ${stderr.trim() || err.message}`)) : resolve(),
    );
  });
}
