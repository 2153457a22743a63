/**
 * The folder file operations (mkdir, move, rename, delete, measuring) built on the descriptor-relative
 * resolution of server/host-path/folder.ts: every step opens with O_NOFOLLOW, so a symlink never redirects one of them.
 */
import { type Dirent } from 'node:fs';
import { link, open, readdir, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { DIR_FLAGS, FolderRoot, at, codeOf, failed, lstatOrNull, makeDirAt, missing, refuse, statEntries, withLocated, withRoot, withTargetDir } from '../host-path/folder';

export interface MkdirOptions {
  parents: boolean;
  existOk: boolean;
  uid: number | null;
}

/** Creates one directory (and its parents when asked), each handed to the kernel uid. */
export async function makeDirectory(root: FolderRoot, components: string[], field: string, options: MkdirOptions): Promise<void> {
  if (!components.length) {
    if (options.existOk) return;
    throw failed('The folder root already exists.');
  }
  await withLocated(root, components, field, { createParents: options.parents, uid: options.uid }, async (loc) => {
    const exists = () => (options.existOk && loc.stat?.isDirectory() ? undefined : failed(`${loc.relative} already exists.`));
    if (loc.stat) {
      const problem = exists();
      if (problem) throw problem;
      return;
    }
    try {
      await makeDirAt(loc.dirFd, loc.name!, options.uid);
    } catch (err) {
      if (codeOf(err) !== 'EEXIST') throw err;
      loc.stat = await lstatOrNull(at(loc.dirFd, loc.name!));
      const problem = exists();
      if (problem) throw problem;
    }
  });
}

/**
 * Moves `from` (an entry named `fromName` in `fromFd`) to `toName` in `toFd`, never replacing anything there:
 * files and links are hard-linked then unlinked (link fails on an existing name); directories are renamed (which
 * can only replace an empty directory, and fails on anything else).
 */
async function moveNoReplace(fromFd: number, fromName: string, toFd: number, toName: string, isDirectory: boolean, relative: string): Promise<void> {
  const target = at(toFd, toName);
  if (await lstatOrNull(target)) throw failed(`${relative} already exists.`);
  try {
    if (isDirectory) {
      await rename(at(fromFd, fromName), target);
      return;
    }
    try {
      await link(at(fromFd, fromName), target);
    } catch (err) {
      const code = codeOf(err);
      // File systems without hard links: fall back to rename right after the existence check above.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw err;
      await rename(at(fromFd, fromName), target);
      return;
    }
    await unlink(at(fromFd, fromName));
  } catch (err) {
    const code = codeOf(err);
    if (code === 'EEXIST' || code === 'ENOTEMPTY') throw failed(`${relative} already exists.`);
    if (code === 'EINVAL') throw failed('A directory cannot be moved into itself.');
    if (code === 'ENOTDIR' || code === 'EISDIR') throw failed(`${relative} already exists as another kind of entry.`);
    if (code === 'ENOENT') throw missing(relative);
    throw err;
  }
}

/** move-file: `dst` is a new path, or an existing directory to move `src` into. Nothing is overwritten. */
export async function moveEntry(root: FolderRoot, src: string[], dst: string[]): Promise<void> {
  if (!src.length) throw refuse('src', 'must not be the folder root');
  await withLocated(root, src, 'src', {}, async (from) => {
    if (!from.stat) throw missing(from.relative);
    const isDirectory = from.stat.isDirectory();
    await withLocated(root, dst, 'dst', { followFinal: true }, async (to) => {
      if (to.name === null || to.stat?.isDirectory()) {
        await withTargetDir(root, to, (fd) => moveNoReplace(from.dirFd, from.name!, fd, from.name!, isDirectory, [to.relative, from.name].filter(Boolean).join('/')));
        return;
      }
      if (to.stat) throw failed(`${to.relative} already exists.`);
      await moveNoReplace(from.dirFd, from.name!, to.dirFd, to.name, isDirectory, to.relative);
    });
  });
}

/** rename-file: gives the entry at `target` the name `newName` in the same directory. */
export async function renameEntry(root: FolderRoot, target: string[], newName: string): Promise<void> {
  if (!target.length) throw refuse('target_path', 'must not be the folder root');
  await withLocated(root, target, 'target_path', {}, async (loc) => {
    if (!loc.stat) throw missing(loc.relative);
    if (loc.name === newName) return;
    const relative = [...loc.relative.split('/').slice(0, -1), newName].join('/');
    await moveNoReplace(loc.dirFd, loc.name!, loc.dirFd, newName, loc.stat.isDirectory(), relative);
  });
}

/**
 * Removes directory `name` inside `parentFd` and everything below it, by descriptor: a symlink is unlinked, never
 * followed (also one swapped in for a directory mid-way), and a directory on another device (a mount point) stops
 * the deletion with 400 instead of being entered.
 */
export async function removeTreeAt(parentFd: number, name: string, dev: number): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(at(parentFd, name), DIR_FLAGS);
  } catch (err) {
    const code = codeOf(err);
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR' || code === 'ELOOP') {
      await unlink(at(parentFd, name)).catch((e) => {
        if (codeOf(e) !== 'ENOENT') throw e;
      });
      return;
    }
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (stat.dev !== dev) throw failed(`${name} is a mount point; it was not deleted.`);
    const entries: Dirent[] = await readdir(at(handle.fd), { withFileTypes: true });
    for (const entry of entries) {
      if (entry.isDirectory()) {
        await removeTreeAt(handle.fd, entry.name, dev);
        continue;
      }
      try {
        await unlink(at(handle.fd, entry.name));
      } catch (err) {
        const code = codeOf(err);
        if (code === 'EISDIR' || code === 'EPERM') await removeTreeAt(handle.fd, entry.name, dev);
        else if (code !== 'ENOENT') throw err;
      }
    }
  } finally {
    await handle.close();
  }
  try {
    await rmdir(at(parentFd, name));
  } catch (err) {
    const code = codeOf(err);
    if (code === 'ENOENT') return;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') throw failed(`${name} changed while it was being deleted; try again.`);
    throw err;
  }
}

/** delete-files: checks every path first (all exist; directories only with `recursive`), then deletes them. */
export async function deleteEntries(root: FolderRoot, paths: string[][], recursive: boolean): Promise<void> {
  for (const components of paths) {
    if (!components.length) throw refuse('files', 'must not name the folder root');
    await withLocated(root, components, 'files', {}, async (loc) => {
      if (!loc.stat) throw missing(loc.relative);
      if (loc.stat.isDirectory() && !recursive) throw failed(`${loc.relative} is a directory; pass recursive=true to delete it.`);
    });
  }
  for (const components of paths) {
    await withLocated(root, components, 'files', {}, async (loc) => {
      if (!loc.stat) return;
      if (loc.stat.isDirectory()) {
        if (!recursive) throw failed(`${loc.relative} is a directory; pass recursive=true to delete it.`);
        await removeTreeAt(loc.dirFd, loc.name!, root.dev);
        return;
      }
      try {
        await unlink(at(loc.dirFd, loc.name!));
      } catch (err) {
        const code = codeOf(err);
        if (code === 'EISDIR' && recursive) await removeTreeAt(loc.dirFd, loc.name!, root.dev);
        else if (code === 'EISDIR') throw failed(`${loc.relative} is a directory; pass recursive=true to delete it.`);
        else if (code !== 'ENOENT') throw err;
      }
    });
  }
}

export interface TreeUsage {
  /** Regular files, symlinks and other non-directories. */
  fileCount: number;
  /** The sum of their sizes (directories count nothing). */
  usedBytes: number;
}

/** Counts the files under a folder root without following symlinks or crossing into another file system. */
export async function measureTree(rootPath: string): Promise<TreeUsage> {
  return withRoot(rootPath, async (root) => {
    const usage: TreeUsage = { fileCount: 0, usedBytes: 0 };
    await measureDir(root.fd, root.dev, usage);
    return usage;
  });
}

async function measureDir(fd: number, dev: number, usage: TreeUsage): Promise<void> {
  const entries: Dirent[] = await readdir(at(fd), { withFileTypes: true }).catch(() => []);
  const files = entries.filter((e) => !e.isDirectory());
  for (const stat of await statEntries(fd, files.map((e) => e.name))) {
    if (!stat || stat.isDirectory()) continue;
    usage.fileCount += 1;
    usage.usedBytes += stat.size;
  }
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    let handle: FileHandle;
    try {
      handle = await open(at(fd, entry.name), DIR_FLAGS);
    } catch {
      continue;
    }
    try {
      if ((await handle.stat()).dev === dev) await measureDir(handle.fd, dev, usage);
    } finally {
      await handle.close();
    }
  }
}
