/**
 * Writes into a kernel's scratch directory on the host without following symlinks: a committed snapshot or a
 * previous run may have left a link (`.vimrc -> /etc/shadow`), and the agent writes with root's rights.
 */
import { closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Creates `rel` (and its parents) as real directories inside `root`; a symlink on the way is refused. */
export function mkdirInside(root: string, rel: string): string {
  let current = root;
  for (const part of rel.split('/').filter((p) => p && p !== '.')) {
    if (part === '..') throw new Error(`path leaves the scratch directory: ${rel}`);
    current = path.join(current, part);
    let stat;
    try {
      stat = lstatSync(current);
    } catch {
      mkdirSync(current);
      continue;
    }
    if (!stat.isDirectory()) throw new Error(`not a directory (or a symlink) in the scratch directory: ${rel}`);
  }
  return current;
}

/** Writes a file at `rel` inside `root`, replacing a symlink there instead of following it. */
export function writeFileInside(root: string, rel: string, content: string, mode: number): void {
  const dir = mkdirInside(root, path.posix.dirname(rel));
  const target = path.join(dir, path.posix.basename(rel));
  try {
    if (lstatSync(target).isSymbolicLink()) unlinkSync(target);
  } catch {
    /* absent */
  }
  const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, mode);
  try {
    writeSync(fd, content);
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}
