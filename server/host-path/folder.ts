/**
 * Host paths inside a folder (one of the two roots of ./; ./kernel-home.ts is the other). Every file operation on a
 * folder goes through here: folder files, transfers, clones, model definitions, image archives.
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
import { constants, lstatSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, type FileHandle } from 'node:fs/promises';
import { Problem, notFound } from '../http/problem';
import { MAX_LINKS, codeOf, refuse } from './checks';

export { codeOf, refuse } from './checks';

export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4096;
const STAT_SLICE = 256;

/** The path of `name` inside the directory open as `fd`, resolved by descriptor. */
export function at(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

export function failed(detail: string): Problem {
  return new Problem('vfolder-operation-failed', detail);
}

export function missing(relative: string): Problem {
  return notFound('No such file or directory.', `${relative || '.'} does not exist in the folder.`);
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
 * lstat of many entries of one open directory, handed to `visit` one by one (null: gone meanwhile). Synchronous
 * calls in slices, yielding between slices: on a local volume that is several times faster than a round trip
 * through the thread pool per entry, and no slice holds the event loop for long. Nothing is kept: a caller that
 * needs only a few figures per entry never holds 100,000 Stats objects.
 */
export async function statEach(fd: number, names: readonly string[], visit: (index: number, stat: Stats | null) => void): Promise<void> {
  for (let i = 0; i < names.length; i += STAT_SLICE) {
    if (i) await new Promise((resolve) => setImmediate(resolve));
    for (let j = i; j < Math.min(i + STAT_SLICE, names.length); j++) {
      visit(j, lstatSync(at(fd, names[j]), { throwIfNoEntry: false }) ?? null);
    }
  }
}

/** lstat of many entries of one open directory (see statEach), as an array. */
export async function statEntries(fd: number, names: string[]): Promise<(Stats | null)[]> {
  const out: (Stats | null)[] = new Array(names.length);
  await statEach(fd, names, (i, stat) => (out[i] = stat));
  return out;
}

export async function lstatOrNull(p: string): Promise<Stats | null> {
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
export async function withTargetDir<T>(root: FolderRoot, loc: Located, fn: (fd: number) => Promise<T>): Promise<T> {
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

/**
 * The file of the folder at `relative`, opened read-only without following a link (a link in the last component is
 * resolved inside the folder first), or null when it does not exist (404 when a directory on the way does not). `check` sees its lstat before it is opened and
 * refuses what the caller cannot use (not a regular file, too large) in the caller's words. The caller closes it.
 */
export async function openFolderFile(rootPath: string, relative: string, field: string, check: (stat: Stats) => void): Promise<FileHandle | null> {
  const components = pathComponents(relative, field);
  return withRoot(rootPath, (root) =>
    withLocated(root, components, field, { followFinal: true }, async (loc) => {
      if (!loc.stat || loc.name === null) return null;
      check(loc.stat);
      return open(at(loc.dirFd, loc.name), constants.O_RDONLY | constants.O_NOFOLLOW);
    }),
  );
}
