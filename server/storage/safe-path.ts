/**
 * The one path-safety module for folder files. Every file operation on a folder goes through here.
 *
 * 1. Lexical check (`pathComponents`): a user path is relative to the folder root. Refused with 400
 *    invalid-api-params: absolute paths, `..` components, NUL bytes, and anything that turns into one of those
 *    once percent-decoded (`%2e%2e/`, `%252e%252e`, `%00`, …). A component longer than 255 bytes is refused too.
 * 2. Resolution (`locate`): the path is walked from an open descriptor of the folder root, one directory at a time,
 *    each opened with O_DIRECTORY|O_NOFOLLOW relative to its parent's descriptor (through /proc/self/fd/N/<name>,
 *    which the kernel resolves by descriptor, never by re-walking a path). A symlink met on the way is followed only
 *    when its target is relative and stays inside the folder (an absolute target, or one climbing above the root,
 *    is refused with 400); the walk then restarts from the root descriptor.
 * 3. Use: operations act on `<parent descriptor>/<final name>` (mkdir, rename, link, unlink, rmdir, open with
 *    O_NOFOLLOW), so a directory or symlink swapped in after the check cannot redirect them outside: the swap
 *    makes the O_NOFOLLOW open fail (400), or the operation hits the link itself, never its target.
 *
 * The manager runs as root while sessions (another uid) write into mounted folders concurrently, so nothing here
 * trusts a path checked earlier: new directories are handed to the kernel uid with fchown on an O_NOFOLLOW
 * descriptor (never chown by path), nothing is ever overwritten by a move, and recursive deletion never follows a
 * symlink nor crosses into another file system.
 */
import { constants, lstatSync, type Dirent, type Stats } from 'node:fs';
import { link, lstat, mkdir, open, readdir, readlink, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { Problem, badRequest, notFound } from '../http/problem';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const MAX_LINKS = 40;
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4096;
const STAT_SLICE = 256;

/** The path of `name` inside the directory open as `fd`, resolved by descriptor. */
export function at(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

function refuse(field: string, detail: string): Problem {
  return badRequest(`${field}: ${detail}`, { [field]: detail });
}

function failed(detail: string): Problem {
  return new Problem('vfolder-operation-failed', detail);
}

function missing(relative: string): Problem {
  return notFound('No such file or directory.', `${relative || '.'} does not exist in the folder.`);
}

function codeOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

/** Percent-decodes repeatedly (double encoding included), byte by byte: for the traversal check only. */
function percentDecoded(value: string): string {
  let current = value;
  for (let round = 0; round < 5; round++) {
    const next = current.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

function hasDotDot(value: string, separators: RegExp): boolean {
  return value.split(separators).some((c) => c === '..');
}

/** Refuses what percent-decoding would turn into traversal, a NUL byte or a separator. */
function checkEncoded(value: string, field: string, allowSeparators: boolean): void {
  const decoded = percentDecoded(value);
  if (decoded === value) return;
  if (decoded.includes('\0')) throw refuse(field, 'must not contain encoded NUL bytes');
  if (/^[/\\]/.test(decoded) || hasDotDot(decoded, /[/\\]/)) throw refuse(field, 'must not contain encoded path traversal');
  if (!allowSeparators && /[/\\]/.test(decoded)) throw refuse(field, 'must not contain encoded separators');
}

/**
 * The lexical check: the components of a path relative to the folder root ([] for the root itself: '', '.',
 * './'). Throws 400 invalid-api-params for anything that could leave the folder.
 */
export function pathComponents(userPath: unknown, field: string): string[] {
  if (typeof userPath !== 'string') throw refuse(field, 'must be a path string');
  if (userPath.includes('\0')) throw refuse(field, 'must not contain NUL bytes');
  if (userPath.startsWith('/')) throw refuse(field, 'must be relative to the folder root');
  if (hasDotDot(userPath, /\//)) throw refuse(field, 'must not contain ".." components');
  checkEncoded(userPath, field, true);
  if (Buffer.byteLength(userPath) > MAX_PATH_BYTES) throw refuse(field, 'is too long');
  const components = userPath.split('/').filter((c) => c !== '' && c !== '.');
  for (const c of components) if (Buffer.byteLength(c) > MAX_NAME_BYTES) throw refuse(field, 'has a component longer than 255 bytes');
  return components;
}

/** A single new entry name (rename-file's new_name): no separators, not `.`/`..`, no NUL, 1-255 bytes. */
export function entryName(name: unknown, field: string): string {
  if (typeof name !== 'string' || name === '') throw refuse(field, 'must be a non-empty name');
  if (name.includes('\0')) throw refuse(field, 'must not contain NUL bytes');
  if (name.includes('/')) throw refuse(field, 'must be a name, not a path');
  if (name === '.' || name === '..') throw refuse(field, 'must not be "." or ".."');
  checkEncoded(name, field, false);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw refuse(field, 'is longer than 255 bytes');
  return name;
}

/**
 * lstat of many entries of one open directory. Synchronous calls in slices, yielding between slices: on a local
 * volume that is several times faster than a round trip through the thread pool per entry, and no slice holds the
 * event loop for long.
 */
async function statEntries(fd: number, names: string[]): Promise<(Stats | null)[]> {
  const out: (Stats | null)[] = new Array(names.length);
  for (let i = 0; i < names.length; i += STAT_SLICE) {
    if (i) await new Promise((resolve) => setImmediate(resolve));
    for (let j = i; j < Math.min(i + STAT_SLICE, names.length); j++) {
      out[j] = lstatSync(at(fd, names[j]), { throwIfNoEntry: false }) ?? null;
    }
  }
  return out;
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await lstat(p);
  } catch (err) {
    if (codeOf(err) === 'ENOENT' || codeOf(err) === 'ENOTDIR') return null;
    throw err;
  }
}

/** An open folder root. Every resolution starts from its descriptor. */
export class FolderRoot {
  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    /** The root's device: operations never cross into another file system below it. */
    readonly dev: number,
  ) {}

  get fd(): number {
    return this.handle.fd;
  }

  static async open(rootPath: string): Promise<FolderRoot> {
    let handle: FileHandle;
    try {
      handle = await open(rootPath, DIR_FLAGS);
    } catch (err) {
      const code = codeOf(err);
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') throw failed("The folder's directory is missing on its storage host.");
      throw err;
    }
    const stat = await handle.stat();
    return new FolderRoot(rootPath, handle, stat.dev);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/**
 * What a file-system error means to the caller. Entries that change while an operation runs (a session writes into
 * the folder at the same time) give ENOENT, ENOTDIR, EINVAL and the like: answered as 4xx, never as a server error.
 */
export function problemOf(err: unknown): unknown {
  if (err instanceof Problem) return err;
  const code = codeOf(err);
  switch (code) {
    case 'ENOENT':
      return notFound('No such file or directory.', 'The file or directory does not exist (or was removed during the operation).');
    case 'ENOTDIR':
    case 'EISDIR':
    case 'ELOOP':
    case 'EINVAL':
    case 'EEXIST':
    case 'ENOTEMPTY':
    case 'EBUSY':
    case 'EXDEV':
    case 'ENAMETOOLONG':
    case 'EMLINK':
      return failed(`The operation failed (${code}): an entry is not what it should be, or changed during the operation.`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return failed(`The storage refused the operation (${code}).`);
    case 'ENOSPC':
      return failed('The storage volume is full.');
    case 'EDQUOT':
      return new Problem('quota-exceeded', 'The storage volume refused the write: its quota is exhausted.');
    default:
      return err;
  }
}

/** Opens the root, runs `fn`, and closes the root whatever happens; file-system errors become problems. */
export async function withRoot<T>(rootPath: string, fn: (root: FolderRoot) => Promise<T>): Promise<T> {
  const root = await FolderRoot.open(rootPath);
  try {
    return await fn(root);
  } catch (err) {
    throw problemOf(err);
  } finally {
    await root.close();
  }
}

export interface Located {
  /** Descriptor of the directory that holds the target (the root's, when the target is the root itself). */
  dirFd: number;
  /** The final component inside `dirFd`; null when the target is the folder root itself. */
  name: string | null;
  /** The canonical path relative to the root (symlinks resolved), for messages. */
  relative: string;
  /** lstat of the target; null when it does not exist. */
  stat: Stats | null;
  /** Closes the parent descriptor (never the root's). */
  close(): Promise<void>;
}

export interface LocateOptions {
  /** Resolve a symlink in the final component too (reads, and destinations that are directories). */
  followFinal?: boolean;
  /** Create missing intermediate directories (each handed to `uid`), instead of answering 404. */
  createParents?: boolean;
  uid?: number | null;
}

/** Opens directory `name` inside `dirFd` without following a symlink. */
async function openDirAt(dirFd: number, name: string, relative: string): Promise<FileHandle> {
  try {
    return await open(at(dirFd, name), DIR_FLAGS);
  } catch (err) {
    const code = codeOf(err);
    // O_DIRECTORY|O_NOFOLLOW on a symlink answers ENOTDIR (or ELOOP): the entry is not, or no longer, a directory.
    if (code === 'ENOTDIR' || code === 'ELOOP') throw failed(`${relative} is not a directory (or was replaced during the operation).`);
    if (code === 'ENOENT') throw missing(relative);
    throw err;
  }
}

/** Creates directory `name` inside `dirFd` and hands it to `uid` through an O_NOFOLLOW descriptor. */
export async function makeDirAt(dirFd: number, name: string, uid: number | null | undefined, mode = 0o755): Promise<void> {
  await mkdir(at(dirFd, name), { mode });
  if (uid === null || uid === undefined) return;
  const handle = await openDirAt(dirFd, name, name);
  try {
    await handle.chown(uid, uid);
  } finally {
    await handle.close();
  }
}

/**
 * Resolves `components` inside the folder, walking by descriptor from the root (see the module comment).
 * The result holds a descriptor: the caller must close() it.
 */
export async function locate(root: FolderRoot, components: string[], field: string, options: LocateOptions = {}): Promise<Located> {
  let pending = [...components];
  let links = 0;
  restart: for (;;) {
    const current: string[] = [];
    let dir: FileHandle | null = null;
    try {
      while (pending.length) {
        const name = pending[0];
        const fd = dir?.fd ?? root.fd;
        if (name === '..') {
          // Only symlink targets carry "..": climb by canonical components, never above the root.
          if (!current.length) throw refuse(field, 'is a symbolic link that leads outside the folder');
          pending = [...current.slice(0, -1), ...pending.slice(1)];
          continue restart;
        }
        const relative = [...current, name].join('/');
        let stat = await lstatOrNull(at(fd, name));
        if (pending.length === 1 && !(options.followFinal && stat?.isSymbolicLink())) {
          const held: FileHandle | null = dir;
          dir = null;
          return { dirFd: fd, name, relative, stat, close: async () => void (await held?.close()) };
        }
        if (!stat) {
          if (!options.createParents) throw missing(relative);
          try {
            await makeDirAt(fd, name, options.uid);
          } catch (err) {
            if (codeOf(err) !== 'EEXIST') throw err;
          }
          stat = await lstatOrNull(at(fd, name));
          if (!stat) throw missing(relative);
        }
        if (stat.isSymbolicLink()) {
          if (++links > MAX_LINKS) throw refuse(field, 'has too many levels of symbolic links');
          const target = await readlink(at(fd, name)).catch((err) => {
            // Replaced since the lstat: walk again from the root.
            if (codeOf(err) === 'ENOENT' || codeOf(err) === 'EINVAL') return null;
            throw err;
          });
          if (target === null) continue restart;
          if (target.startsWith('/') || target.includes('\0')) throw refuse(field, 'is a symbolic link that leads outside the folder');
          pending = [...current, ...target.split('/').filter((c) => c !== '' && c !== '.'), ...pending.slice(1)];
          continue restart;
        }
        if (!stat.isDirectory()) throw failed(`${relative} is not a directory.`);
        const next = await openDirAt(fd, name, relative);
        await dir?.close();
        dir = next;
        current.push(name);
        pending.shift();
      }
      // Every component resolved away (a symlink to "." or ".."): the target is the root itself.
      return { dirFd: root.fd, name: null, relative: '', stat: await lstat(at(root.fd)), close: async () => undefined };
    } finally {
      await dir?.close();
    }
  }
}

/** Resolves, runs `fn` with the result, and closes it. */
export async function withLocated<T>(root: FolderRoot, components: string[], field: string, options: LocateOptions, fn: (loc: Located) => Promise<T>): Promise<T> {
  const loc = await locate(root, components, field, options);
  try {
    return await fn(loc);
  } finally {
    await loc.close();
  }
}

/** Runs `fn` with a descriptor of the located directory (the root, or `name` opened without following links). */
async function withTargetDir<T>(root: FolderRoot, loc: Located, fn: (fd: number) => Promise<T>): Promise<T> {
  if (loc.name === null) return fn(root.fd);
  if (!loc.stat) throw missing(loc.relative);
  if (!loc.stat.isDirectory()) throw failed(`${loc.relative} is not a directory.`);
  const handle = await openDirAt(loc.dirFd, loc.name, loc.relative);
  try {
    return await fn(handle.fd);
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Operations

export interface DirEntry {
  name: string;
  type: 'FILE' | 'DIRECTORY' | 'SYMLINK';
  size: number;
  /** Permission bits in octal, e.g. "644". */
  mode: string;
  created: string;
  modified: string;
}

function entryOf(name: string, stat: Stats): DirEntry {
  const created = stat.birthtimeMs > 0 ? stat.birthtime : stat.ctime;
  return {
    name,
    type: stat.isDirectory() ? 'DIRECTORY' : stat.isSymbolicLink() ? 'SYMLINK' : 'FILE',
    size: stat.size,
    mode: (stat.mode & 0o777).toString(8).padStart(3, '0'),
    created: created.toISOString(),
    modified: stat.mtime.toISOString(),
  };
}

/** The entries of a directory, sorted by name; symlinks are listed as themselves, never followed. */
export async function listDirectory(root: FolderRoot, components: string[], field: string): Promise<DirEntry[]> {
  return withLocated(root, components, field, { followFinal: true }, (loc) =>
    withTargetDir(root, loc, async (fd) => {
      const names = (await readdir(at(fd))).sort();
      const stats = await statEntries(fd, names);
      const entries: DirEntry[] = [];
      stats.forEach((stat, i) => {
        if (stat) entries.push(entryOf(names[i], stat));
      });
      return entries;
    }),
  );
}

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
