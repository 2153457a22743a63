/**
 * GET /session/{name}/files?path=: one directory of the session's /home/work (CONTRACT §7.2). Entries are
 * described without following symlinks; times are epoch seconds with fractions, as Backend.AI sends them.
 */
import { constants, readdirSync, lstatSync, type Stats } from 'node:fs';
import path from 'node:path';
import { badRequest } from '../../http/problem';
import { assertDirectoryInside, resolveInScratch } from '../../host-path/kernel-home';
import type { Scratch } from './scratch';

export interface FileEntry {
  filename: string;
  mode: string;
  size: number;
  ctime: number;
  mtime: number;
  atime: number;
}

export interface FileListing {
  files: FileEntry[];
  folder_path: string;
  abspath: string;
  errors: string;
}

export function listFiles(scratch: Scratch, requested: string): FileListing {
  const dir = resolveInScratch(scratch.root, requested, 'path', { followFinal: true });
  if (!dir.stat?.isDirectory()) throw badRequest(`path: ${dir.kernelPath} is not a directory`, { path: 'not a directory' });
  assertDirectoryInside(scratch.root, dir.hostPath, 'path');
  const files: FileEntry[] = [];
  const errors: string[] = [];
  for (const name of readdirSync(dir.hostPath).sort()) {
    let stat: Stats;
    try {
      stat = lstatSync(path.join(dir.hostPath, name));
    } catch (err) {
      // Removed between readdir and lstat (the kernel keeps working meanwhile).
      errors.push(`${name}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
      continue;
    }
    files.push({
      filename: name,
      mode: fileMode(stat.mode),
      size: stat.size,
      ctime: stat.ctimeMs / 1000,
      mtime: stat.mtimeMs / 1000,
      atime: stat.atimeMs / 1000,
    });
  }
  return { files, folder_path: dir.kernelPath, abspath: requested, errors: errors.join('\n') };
}

/** `ls -l` / Python's stat.filemode: the type letter, then rwx triplets with setuid, setgid and sticky bits. */
export function fileMode(mode: number): string {
  const type = mode & constants.S_IFMT;
  const letter =
    type === constants.S_IFDIR ? 'd'
    : type === constants.S_IFLNK ? 'l'
    : type === constants.S_IFIFO ? 'p'
    : type === constants.S_IFSOCK ? 's'
    : type === constants.S_IFCHR ? 'c'
    : type === constants.S_IFBLK ? 'b'
    : '-';
  const triplet = (shift: number, special: number, set: string, unset: string) => {
    const bits = (mode >> shift) & 7;
    const exec = bits & 1;
    const x = mode & special ? (exec ? set : unset) : exec ? 'x' : '-';
    return (bits & 4 ? 'r' : '-') + (bits & 2 ? 'w' : '-') + x;
  };
  return letter + triplet(6, 0o4000, 's', 'S') + triplet(3, 0o2000, 's', 'S') + triplet(0, 0o1000, 't', 'T');
}
