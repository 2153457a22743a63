/**
 * `POST /folders/{name}/clone` (CONTRACT §9.6): a new user folder of the caller holding a file-for-file copy of a
 * `cloneable` folder (else 403), on the same storage proxy (else 400). Checked before anything is created: the
 * caller can read the source, the source is ready or mounted, the target plan is valid (name, host, policy
 * limits), and the source's bytes fit into the caller's quota scope (412, held for the whole copy).
 *
 * Both folders are `cloning` while a background task (§10.2) copies the tree, reporting files copied / total.
 * The target then becomes `ready` (or `error`), and the source returns to the status it had.
 *
 * The copy works by descriptor, like server/host-path/folder.ts: directories are opened with O_NOFOLLOW relative to
 * their parent, regular files with O_NOFOLLOW (and O_NONBLOCK, so a FIFO swapped in cannot hang it), symlinks are
 * copied as symlinks with the same target (never followed), modes and modification times are kept, other entries
 * (devices, FIFOs, sockets) are skipped, and a directory on another file system (a mount point) is copied empty.
 */
import { constants, type Stats } from 'node:fs';
import { lchown, lstat, mkdir, open, readdir, readlink, symlink, type FileHandle } from 'node:fs/promises';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import type { FolderPermission } from '../db/schema';
import { Problem, badRequest } from '../http/problem';
import { startBackgroundTask } from '../bgtasks/tasks';
import { findFolder, requirePermission, requireStatus } from './access';
import { materializeFolder, planFolder, type UsageMode } from './create';
import { folderOwnerUid } from './hosts';
import { toHex32 } from './ids';
import { reserveQuota } from './quota';
import { DIR_FLAGS, FolderRoot, at } from '../host-path/folder';
import { measureTree } from './folder-operations';
import { transitionFolder } from './status';
import { folderRootPath } from './usage';

const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const NEW_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const PROGRESS_INTERVAL_MS = 200;
/** The background task's name (./clone-recovery.ts settles the ones a restart interrupted). */
export const CLONE_TASK = 'clone_vfolder';

export interface CloneInput {
  name: string;
  target_name: string;
  target_host?: string | null;
  cloneable: boolean;
  usage_mode?: UsageMode | null;
  permission?: FolderPermission | null;
}

function proxyOf(host: string): string {
  return host.slice(0, host.indexOf(':'));
}

export async function cloneFolder(app: App, caller: Principal, input: CloneInput): Promise<Record<string, unknown>> {
  const source = await findFolder(app, caller, input.name);
  requirePermission(source, 'ro');
  if (!source.folder.cloneable) throw new Problem('generic-forbidden', `The folder "${source.folder.name}" is not cloneable.`);
  requireStatus(source.folder, 'updatable');
  const targetHost = input.target_host || source.folder.host;
  if (proxyOf(targetHost) !== proxyOf(source.folder.host)) {
    throw badRequest(`target_host: a clone must stay on the storage proxy of its source (${proxyOf(source.folder.host)}).`, { target_host: 'another storage proxy' });
  }
  const plan = await planFolder(app, caller, {
    name: input.target_name,
    host: targetHost,
    usage_mode: input.usage_mode ?? (source.folder.usage_mode as UsageMode),
    permission: input.permission ?? source.folder.permission,
    cloneable: input.cloneable,
  });
  const sourcePath = folderRootPath(app, source.folder);
  const usage = await measureTree(sourcePath);
  const release = await reserveQuota(app, { quota_scope_id: plan.quotaScopeId }, usage.usedBytes);
  let taskStarted = false;
  try {
    const originalStatus = source.folder.status;
    if (!(await transitionFolder(app, source.folder.id, [originalStatus], 'cloning'))) {
      throw new Problem('vfolder-filter-status-failed', `The folder "${source.folder.name}" changed status; try again.`);
    }
    let target;
    try {
      target = await materializeFolder(app, plan, 'cloning');
    } catch (err) {
      await transitionFolder(app, source.folder.id, ['cloning'], originalStatus);
      throw err;
    }
    const targetPath = folderRootPath(app, target);
    const bgtaskId = await startBackgroundTask(app, { accessKey: caller.accessKey, name: CLONE_TASK }, async (progress) => {
      try {
        const total = usage.fileCount;
        let copied = 0;
        let last = 0;
        progress(0, total, null);
        const onFile = () => {
          copied += 1;
          const now = Date.now();
          if (now - last >= PROGRESS_INTERVAL_MS || copied === total) {
            last = now;
            progress(copied, Math.max(total, copied), null);
          }
        };
        await copyFolderTree(app, sourcePath, targetPath, onFile);
        progress(copied, Math.max(total, copied), null);
        await transitionFolder(app, target.id, ['cloning'], 'ready');
        return `cloned ${copied} files into ${toHex32(target.id)}`;
      } catch (err) {
        await transitionFolder(app, target.id, ['cloning'], 'error');
        throw err;
      } finally {
        await transitionFolder(app, source.folder.id, ['cloning'], originalStatus);
        release();
      }
    });
    taskStarted = true;
    return {
      id: toHex32(target.id),
      name: target.name,
      host: target.host,
      usage_mode: target.usage_mode,
      permission: target.permission,
      creator: target.creator,
      ownership_type: 'user',
      user: target.user_uuid,
      group: null,
      cloneable: target.cloneable,
      bgtask_id: bgtaskId,
    };
  } finally {
    if (!taskStarted) release();
  }
}

/** Copies the tree under `sourcePath` into the empty directory `targetPath`; `onFile` after each non-directory. */
export async function copyFolderTree(app: App, sourcePath: string, targetPath: string, onFile: () => void): Promise<void> {
  const source = await FolderRoot.open(sourcePath);
  try {
    const target = await FolderRoot.open(targetPath);
    try {
      await copyDir(source.fd, target.fd, source.dev, folderOwnerUid(app), onFile);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await lstat(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function copyDir(srcFd: number, dstFd: number, dev: number, uid: number | null, onFile: () => void): Promise<void> {
  const names = (await readdir(at(srcFd))).sort();
  for (const name of names) {
    const stat = await lstatOrNull(at(srcFd, name));
    if (!stat) continue; // removed meanwhile
    if (stat.isDirectory()) {
      await copySubdirectory(srcFd, dstFd, name, dev, uid, onFile);
    } else if (stat.isSymbolicLink()) {
      const target = await readlink(at(srcFd, name));
      await symlink(target, at(dstFd, name));
      if (uid !== null) await lchown(at(dstFd, name), uid, uid);
      onFile();
    } else if (stat.isFile()) {
      await copyFile(srcFd, dstFd, name, uid);
      onFile();
    }
  }
}

async function copySubdirectory(srcFd: number, dstFd: number, name: string, dev: number, uid: number | null, onFile: () => void): Promise<void> {
  let src: FileHandle;
  try {
    src = await open(at(srcFd, name), DIR_FLAGS);
  } catch (err) {
    // Replaced by a symlink or removed since the lstat: copy it as what it is now.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR' || code === 'ELOOP') {
      const now = await lstatOrNull(at(srcFd, name));
      if (now?.isSymbolicLink()) {
        await symlink(await readlink(at(srcFd, name)), at(dstFd, name));
        onFile();
      }
      return;
    }
    throw err;
  }
  try {
    const stat = await src.stat();
    await mkdir(at(dstFd, name), { mode: 0o700 });
    const dst = await open(at(dstFd, name), DIR_FLAGS);
    try {
      if (stat.dev === dev) await copyDir(src.fd, dst.fd, dev, uid, onFile);
      // Modes and times once the contents are in (a read-only directory could not be filled otherwise).
      if (uid !== null) await dst.chown(uid, uid);
      await dst.chmod(stat.mode & 0o7777);
      await dst.utimes(stat.atime, stat.mtime);
    } finally {
      await dst.close();
    }
  } finally {
    await src.close();
  }
}

/** Copies every byte of `src` into `dst` from offset 0, by descriptor, 1 MiB at a time. */
export async function copyHandle(src: FileHandle, dst: FileHandle): Promise<number> {
  const buffer = Buffer.allocUnsafe(1 << 20);
  let position = 0;
  for (;;) {
    const { bytesRead } = await src.read(buffer, 0, buffer.length, position);
    if (!bytesRead) return position;
    let written = 0;
    while (written < bytesRead) {
      const { bytesWritten } = await dst.write(buffer, written, bytesRead - written, position + written);
      written += bytesWritten;
    }
    position += bytesRead;
  }
}

async function copyFile(srcFd: number, dstFd: number, name: string, uid: number | null): Promise<void> {
  let src: FileHandle;
  try {
    src = await open(at(srcFd, name), FILE_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENXIO') return; // removed or swapped meanwhile
    throw err;
  }
  try {
    const stat = await src.stat();
    if (!stat.isFile()) return;
    const dst = await open(at(dstFd, name), NEW_FILE_FLAGS, 0o600);
    try {
      await copyHandle(src, dst);
      if (uid !== null) await dst.chown(uid, uid);
      await dst.chmod(stat.mode & 0o7777);
      await dst.utimes(stat.atime, stat.mtime);
      await dst.sync();
    } finally {
      await dst.close();
    }
  } finally {
    await src.close();
  }
}
