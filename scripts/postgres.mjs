// A throwaway PostgreSQL cluster on a loopback port (Debian's server binaries), for the test command and benches.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

function binDir() {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts the cluster; returns its URL and a stop() that removes it. */
export async function startPostgres() {
  const bin = binDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'berth-pg-'));
  const asRoot = process.getuid?.() === 0;
  // PostgreSQL refuses to run as root: run it as the postgres user the Debian package created.
  const run = (cmd, args) => {
    const argv = asRoot ? ['-u', 'postgres', '--', `${bin}/${cmd}`, ...args] : args;
    const result = spawnSync(asRoot ? 'runuser' : `${bin}/${cmd}`, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${cmd} failed: ${result.stderr || result.stdout}`);
  };
  if (asRoot) {
    const { uid, gid } = userIds('postgres');
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function userIds(name) {
  const out = execFileSync('id', [name], { encoding: 'utf8' });
  return { uid: Number(/uid=(\d+)/.exec(out)[1]), gid: Number(/gid=(\d+)/.exec(out)[1]) };
}
