/**
 * Host paths inside a kernel's scratch directory as the kernel sees it, /home/work (one of the two roots of ./;
 * ./folder.ts is the other): session files and image snapshots. A user path (relative, or absolute under
 * /home/work) is resolved against the kernel's scratch directory the way the sandbox would see it, without ever leaving that directory:
 * `..` past /home/work, absolute paths elsewhere, NUL bytes and symlinks whose target lies outside /home/work are
 * refused with 400 invalid-api-params. Symlinks are read and followed here, component by component (an absolute
 * target under /home/work is re-rooted at the scratch directory, as the sandbox sees it), never by the host.
 *
 * The manager runs as root while the sandbox's user controls the scratch tree, so a check alone is racy: files
 * are then opened with O_NOFOLLOW and the opened descriptor's real path (/proc/self/fd) is checked once more.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, type Stats, fchownSync, chownSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { Problem, notFound } from '../http/problem';
import { MAX_LINKS, descriptorPath, isInside, refuse } from './checks';

export const KERNEL_HOME = '/home/work';

export interface ResolvedPath {
  /** Host path inside the scratch directory (the real directory path, then the rest). */
  hostPath: string;
  /** POSIX path relative to /home/work; '' for /home/work itself. */
  relative: string;
  /** The path as the kernel sees it. */
  kernelPath: string;
  /** Trailing components that do not exist yet (only when `allowMissing`). */
  missing: string[];
  /** lstat of the resolved path, or null when it does not exist. */
  stat: Stats | null;
}

export interface ResolveOptions {
  /** Follow a symlink in the last component (reads: yes; writes replace the link itself: no). */
  followFinal?: boolean;
  /** Return the missing tail instead of answering 404 (writes create it). */
  allowMissing?: boolean;
}

/**
 * The lexical part: the path relative to /home/work, normalized. Refuses NUL bytes, absolute paths outside
 * /home/work and `..` escapes. Does not touch the file system.
 */
export function relativeToHome(userPath: string, field: string): string {
  if (typeof userPath !== 'string') throw refuse(field, 'must be a path');
  if (userPath.includes('\0')) throw refuse(field, 'must not contain NUL bytes');
  let relative: string;
  if (userPath.startsWith('/')) {
    const normalized = path.posix.normalize(userPath);
    if (normalized !== KERNEL_HOME && !normalized.startsWith(`${KERNEL_HOME}/`)) throw refuse(field, `must be under ${KERNEL_HOME}`);
    relative = normalized.slice(KERNEL_HOME.length).replace(/^\/+/, '');
  } else {
    relative = path.posix.normalize(userPath === '' ? '.' : userPath);
  }
  relative = relative.replace(/\/+$/, '');
  if (relative === '.') relative = '';
  if (relative === '..' || relative.startsWith('../')) throw refuse(field, `must not leave ${KERNEL_HOME}`);
  return relative;
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw err;
  }
}

/** The real path of a scratch directory (resolved once: the data directory itself may sit behind a symlink). */
export function scratchRoot(scratchDir: string): string {
  try {
    return realpathSync(scratchDir);
  } catch {
    throw new Problem('kernel-execution-failed', 'The session has no scratch directory.');
  }
}

/**
 * Resolves `userPath` inside `root` (a real scratch directory path), following symlinks as the sandbox would
 * and refusing any that lead outside it.
 */
export function resolveInScratch(root: string, userPath: string, field: string, options: ResolveOptions = {}): ResolvedPath {
  const relative = relativeToHome(userPath, field);
  const pending = relative === '' ? [] : relative.split('/');
  let current = root;
  let links = 0;
  let stat: Stats | null = lstatSync(root);
  while (pending.length) {
    const name = pending.shift()!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      if (current === root) throw refuse(field, `leads outside ${KERNEL_HOME}`);
      current = path.dirname(current);
      stat = lstatSync(current);
      continue;
    }
    if (!stat?.isDirectory()) throw refuse(field, `${path.relative(root, current) || '.'} is not a directory`);
    const next = path.join(current, name);
    const nextStat = lstatOrNull(next);
    if (!nextStat) {
      if (!options.allowMissing) throw notFound('No such file or directory.', `${KERNEL_HOME}/${relative} does not exist.`);
      const missing = [name, ...pending].filter((n) => n !== '' && n !== '.');
      if (missing.includes('..')) throw refuse(field, 'must not use .. after a missing directory');
      return { hostPath: path.join(current, ...missing), relative, kernelPath: kernelPathOf(relative), missing, stat: null };
    }
    if (nextStat.isSymbolicLink() && (pending.length > 0 || options.followFinal)) {
      if (++links > MAX_LINKS) throw refuse(field, 'has too many levels of symbolic links');
      const target = readlinkSync(next);
      if (target.includes('\0')) throw refuse(field, 'has an invalid symbolic link');
      if (target.startsWith('/')) {
        const normalized = path.posix.normalize(target);
        if (normalized !== KERNEL_HOME && !normalized.startsWith(`${KERNEL_HOME}/`)) throw refuse(field, `is a symbolic link that leads outside ${KERNEL_HOME}`);
        pending.unshift(...normalized.slice(KERNEL_HOME.length).split('/').filter(Boolean));
        current = root;
        stat = lstatSync(root);
      } else {
        pending.unshift(...target.split('/'));
      }
      continue;
    }
    current = next;
    stat = nextStat;
  }
  return { hostPath: current, relative, kernelPath: kernelPathOf(relative), missing: [], stat };
}

function kernelPathOf(relative: string): string {
  return relative ? `${KERNEL_HOME}/${relative}` : KERNEL_HOME;
}

/**
 * Opens a path inside `root` without following a symlink in its last component, then checks where the descriptor
 * really points (a component may have been swapped for a symlink since it was resolved). Returns the descriptor.
 */
export function openInside(root: string, hostPath: string, field: string, flags: number, mode = 0o644): number {
  let fd: number;
  try {
    fd = openSync(hostPath, flags | constants.O_NOFOLLOW, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse(field, 'is a symbolic link');
    if (code === 'ENOENT') throw notFound('No such file or directory.', `${field} does not exist.`);
    if (code === 'EISDIR') throw refuse(field, 'is a directory');
    if (code === 'ENOTDIR') throw refuse(field, 'has a component that is not a directory');
    throw err;
  }
  const real = descriptorPath(fd);
  if (real !== null && !isInside(root, real)) {
    closeSync(fd);
    throw refuse(field, `leads outside ${KERNEL_HOME}`);
  }
  return fd;
}

/** Throws unless the real path of an existing directory is still inside `root` (checked right before use). */
export function assertDirectoryInside(root: string, hostPath: string, field: string): void {
  let real: string;
  try {
    real = realpathSync(hostPath);
  } catch {
    throw notFound('No such file or directory.', `${field} does not exist.`);
  }
  if (!isInside(root, real)) throw refuse(field, `leads outside ${KERNEL_HOME}`);
}

/**
 * Makes sure the directory `relative` exists inside `root`, creating missing components one at a time (each
 * owned by `uid` when given) and never through a symlink that leads out. Returns its host path.
 */
export function ensureDirectory(root: string, relative: string, field: string, uid: number | null): string {
  const resolved = resolveInScratch(root, relative, field, { followFinal: true, allowMissing: true });
  if (resolved.stat && !resolved.stat.isDirectory()) throw refuse(field, `${resolved.kernelPath} is not a directory`);
  // The existing prefix: the host path minus the missing tail.
  let current = resolved.missing.reduce((p) => path.dirname(p), resolved.hostPath);
  for (const name of resolved.missing) {
    const next = path.join(current, name);
    try {
      mkdirSync(next);
      chmodSync(next, 0o755);
      if (uid !== null) chownSync(next, uid, uid);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const stat = lstatSync(next);
    if (!stat.isDirectory()) throw refuse(field, `${path.relative(root, next)} is not a directory`);
    current = next;
  }
  assertDirectoryInside(root, current, field);
  return current;
}

/** Hands a freshly written descriptor to the kernel's user. */
export function giveTo(fd: number, uid: number | null): void {
  if (uid !== null) fchownSync(fd, uid, uid);
}
