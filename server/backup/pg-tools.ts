/**
 * PostgreSQL's own tools (pg_dump, pg_restore), run with argv arrays and the password in PGPASSWORD rather than on
 * the command line (where `ps` would show it). Debian's postgresql-client puts them on PATH; the server package's
 * newest /usr/lib/postgresql/<version>/bin is the fallback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

function findTool(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const candidate = path.join(root, version, 'bin', name);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not installed: install Debian's postgresql-client (the server's major version or newer).`);
}

/** The connection URL without its password, and the password for PGPASSWORD. */
function connection(url: string): { dbname: string; password?: string } {
  const parsed = new URL(url);
  const password = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  parsed.password = '';
  return { dbname: parsed.toString(), password };
}

/** Starts a PostgreSQL tool against `url`; stderr is kept for the error message. */
export function runPgTool(name: 'pg_dump' | 'pg_restore', url: string, args: string[]): { child: ChildProcess; done: Promise<void> } {
  const { dbname, password } = connection(url);
  const env: NodeJS.ProcessEnv = { ...process.env, ...(password ? { PGPASSWORD: password } : {}) };
  const child = spawn(findTool(name), [...args, '--dbname', dbname], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < 16_384) stderr += chunk.toString('utf8');
  });
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${name} failed (${signal ?? `exit ${code}`}): ${stderr.trim() || 'no message'}`));
    });
  });
  return { child, done };
}
