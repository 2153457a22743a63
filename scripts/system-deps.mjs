// Debian packages Berth needs, by purpose. As root they are installed when missing (apt-get); otherwise the
// command says what to install and stops. Nothing is downloaded from anywhere but Debian's archive.
import { execFileSync, spawnSync } from 'node:child_process';

export const PACKAGES = {
  // Running Berth: sandboxes for sessions (bubblewrap; util-linux's setpriv is essential), Python for kernels,
  // Jupyter for the python image's `jupyter` app, procps for the tools people expect in a terminal, OpenSSH's server
  // for every session's `sshd` app and rsync beside it (so `rsync` from one's own machine finds its other end).
  run: [
    { pkg: 'bubblewrap', check: 'bwrap' },
    { pkg: 'python3', check: '/usr/bin/python3' },
    { pkg: 'jupyter-notebook', check: '/usr/bin/jupyter-notebook' },
    { pkg: 'python3-ipykernel', check: '/usr/lib/python3/dist-packages/ipykernel' },
    { pkg: 'procps', check: 'pkill' },
    { pkg: 'openssh-server', check: '/usr/sbin/sshd' },
    { pkg: 'rsync', check: '/usr/bin/rsync' },
  ],
  // The test command: a real PostgreSQL server, a real browser, and a real Slurm cluster (slurmctld, slurmd and
  // munge, with nodes in network namespaces made by iproute2), and a Docker engine.
  test: [
    { pkg: 'postgresql', check: '/usr/lib/postgresql' },
    // berth backup / restore on PostgreSQL run its pg_dump and pg_restore.
    { pkg: 'postgresql-client', check: 'pg_dump' },
    { pkg: 'chromium', check: 'chromium' },
    { pkg: 'slurm-wlm', check: '/usr/sbin/slurmctld' },
    { pkg: 'slurm-wlm', check: '/usr/sbin/slurmd' },
    { pkg: 'munge', check: '/usr/sbin/munged' },
    { pkg: 'iproute2', check: '/usr/sbin/ip' },
    // The SSH tests run the real clients through `berth app … sshd` and `berth ssh`.
    { pkg: 'openssh-client', check: '/usr/bin/ssh' },
    { pkg: 'rsync', check: '/usr/bin/rsync' },
    // A private Docker engine and its test images (a debootstrap'ed Debian, and busybox-static's shell).
    { pkg: 'docker.io', check: '/usr/sbin/dockerd' },
    { pkg: 'debootstrap', check: '/usr/sbin/debootstrap' },
    { pkg: 'busybox-static', check: '/bin/busybox' },
    // An image registry on loopback, to pull from (test/docker/registry.ts).
    { pkg: 'docker-registry', check: '/usr/bin/docker-registry' },
  ],
  // `npm run bench` only (never npm install): nginx, the reverse proxy bench/apps.mjs compares the app proxy with,
  // and wrk, a C load generator (one thread), so a 2-core machine measures the servers rather than a JavaScript
  // load generator (bench/harness.mjs falls back to autocannon without it).
  bench: [
    { pkg: 'nginx', check: '/usr/sbin/nginx' },
    { pkg: 'wrk', check: 'wrk' },
  ],
};

function present(check) {
  if (check.startsWith('/')) return spawnSync('test', ['-e', check]).status === 0;
  return spawnSync('sh', ['-c', `command -v ${check}`], { stdio: 'ignore' }).status === 0;
}

export function ensurePackages(purposes) {
  const wanted = purposes.flatMap((p) => PACKAGES[p]);
  const missing = [...new Set(wanted.filter((w) => !present(w.check)).map((w) => w.pkg))];
  if (!missing.length) return;
  if (process.getuid?.() !== 0) {
    console.error(`Berth needs these Debian packages: ${missing.join(' ')}\n  sudo apt-get install -y ${missing.join(' ')}`);
    process.exit(1);
  }
  console.log(`Installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
}
