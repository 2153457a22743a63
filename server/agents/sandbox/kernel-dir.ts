/**
 * A sandboxed kernel's directory on the host (or on the shared file system of a cluster): `work/` becomes the
 * kernel's /home/work, beside it the generated /etc files and the kernel's log. Shared by the backends that run
 * bubblewrap sandboxes (local, slurm).
 */
import { chownSync, closeSync, cpSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KernelFile, KernelSpec } from '../agent';
import { mkdirInside, writeFileInside } from './scratch-files';

export interface KernelDir {
  root: string;
  scratch: string;
  log: string;
}

/** Where a kernel's socket lives on this host: short and outside the data directory (Unix socket paths are limited to ~108 bytes). */
export function kernelRunDir(kernelId: string): string {
  return path.join(tmpdir(), 'berth-run', kernelId);
}

export function kernelDir(dataDir: string, kernelId: string): KernelDir {
  const root = path.join(dataDir, 'kernels', kernelId);
  return { root, scratch: path.join(root, 'work'), log: path.join(root, 'kernel.log') };
}

/** The scratch directory with the image snapshot, dotfiles, bootstrap script and mount points, owned by `uid`. */
export function prepareScratch(dir: KernelDir, spec: KernelSpec, uid: number | null): void {
  prepareScratchForStart(dir, spec, uid);
  writeKernelFiles(dir, spec.files, uid);
}

/**
 * What a sandbox needs before it starts: the scratch directory with the image snapshot, the bootstrap script and
 * the mount points, owned by `uid`. The kernel's files (dotfiles, sshd's keys) are `writeKernelFiles`'s.
 */
export function prepareScratchForStart(dir: KernelDir, spec: KernelSpec, uid: number | null): void {
  mkdirSync(dir.scratch, { recursive: true });
  if (spec.snapshotDir && existsSync(spec.snapshotDir)) cpSync(spec.snapshotDir, dir.scratch, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  mkdirInside(dir.scratch, '.berth');
  if (spec.bootstrapScript) writeFileInside(dir.scratch, '.berth/bootstrap.sh', spec.bootstrapScript, 0o755);
  for (const mount of spec.mounts) mkdirInside(dir.scratch, path.posix.relative('/home/work', mount.kernelPath));
  if (uid !== null) chownTree(dir.scratch, uid);
}

/** The kernel's files in its scratch directory, each with the folders it needed owned by `uid`. */
export function writeKernelFiles(dir: KernelDir, files: KernelFile[], uid: number | null): void {
  const owned = new Set<string>();
  for (const file of files) {
    writeFileInside(dir.scratch, file.path, file.content, file.mode);
    if (uid === null) continue;
    let rel = '';
    for (const part of file.path.split('/').filter((p) => p && p !== '.')) {
      rel = rel ? `${rel}/${part}` : part;
      if (owned.has(rel)) continue;
      owned.add(rel);
      chownSync(path.join(dir.scratch, rel), uid, uid);
    }
  }
}

/** /etc/hosts with the kernel's cluster peers. */
export function hostsFileContent(hostname: string, hosts: Record<string, string>): string {
  const lines = ['127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback', `127.0.1.1\t${hostname}`];
  for (const [name, address] of Object.entries(hosts)) if (name !== hostname) lines.push(`${address}\t${name}`);
  return lines.join('\n') + '\n';
}

/**
 * The generated files bound over the host's /etc: hosts, and (when kernels run as their own uid) passwd and group
 * naming that uid `work`, so shells and tools know who they are.
 */
export function writeEtcFiles(dir: KernelDir, spec: KernelSpec, uid: number | null): { hostPath: string; sandboxPath: string }[] {
  const hostsFile = path.join(dir.root, 'hosts');
  writeFileSync(hostsFile, hostsFileContent(spec.hostname, spec.hosts), { mode: 0o644 });
  const files = [{ hostPath: hostsFile, sandboxPath: '/etc/hosts' }];
  if (uid === null) return files;
  const accounts = [
    { name: 'passwd', line: `work:x:${uid}:${uid}:Berth session:/home/work:/bin/bash` },
    { name: 'group', line: `work:x:${uid}:` },
  ];
  for (const { name, line } of accounts) {
    const hostPath = path.join(dir.root, name);
    const base = readFileSync(`/etc/${name}`, 'utf8').split('\n').filter((l) => l && !l.startsWith('work:') && !l.includes(`:${uid}:`));
    writeFileSync(hostPath, [...base, line].join('\n') + '\n', { mode: 0o644 });
    files.push({ hostPath, sandboxPath: `/etc/${name}` });
  }
  return files;
}

function chownTree(root: string, uid: number): void {
  const visit = (p: string) => {
    const stat = lstatSync(p);
    chownSync(p, uid, uid);
    if (stat.isDirectory()) for (const entry of readdirSync(p)) visit(path.join(p, entry));
  };
  visit(root);
}

/** The last `bytes` of a log file ('' when there is none). */
export function readTail(file: string, bytes: number): string {
  if (!existsSync(file)) return '';
  const size = statSync(file).size;
  if (size <= bytes) return readFileSync(file, 'utf8');
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    readSync(fd, buffer, 0, bytes, size - bytes);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
