/**
 * Copies a kernel's scratch directory into an image's snapshot directory without trusting anything in it: the
 * tree is walked with lstat, regular files are read through descriptors opened by the session path-safety check
 * (so nothing outside the scratch directory is ever read), symlinks are copied as links, and fifos, sockets and
 * devices are left out. Modes and modification times are kept; the copy belongs to the manager's user.
 */
import { chmod, close, mkdir, open, read, symlink, utimes, write } from 'node:fs';
import { closeSync, constants, fstatSync, lstatSync, readdirSync, readlinkSync, type Stats } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { assertDirectoryInside, openInside } from '../host-path/kernel-home';

const readAsync = promisify(read);
const writeAsync = promisify(write);
const openAsync = promisify(open);
const closeAsync = promisify(close);
const mkdirAsync = promisify(mkdir);
const symlinkAsync = promisify(symlink);
const utimesAsync = promisify(utimes);
const chmodAsync = promisify(chmod);

const CHUNK = 1024 * 1024;

export interface SnapshotProgress {
  (copiedFiles: number, totalFiles: number): void;
}

export interface SnapshotResult {
  files: number;
  bytes: number;
}

interface Entry {
  relative: string;
  stat: Stats;
}

/** Every entry worth copying, parents before children. `skip` names top-level entries to leave out. */
function walk(root: string, skip: ReadonlySet<string>): Entry[] {
  const out: Entry[] = [];
  const visit = (relative: string) => {
    let names: string[];
    try {
      // A directory swapped for a symlink since it was seen is not read.
      assertDirectoryInside(root, path.join(root, relative), 'path');
      names = readdirSync(path.join(root, relative)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const childRelative = relative ? `${relative}/${name}` : name;
      if (!relative && skip.has(name)) continue;
      let stat: Stats;
      try {
        stat = lstatSync(path.join(root, childRelative));
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        out.push({ relative: childRelative, stat });
        visit(childRelative);
      } else if (stat.isFile() || stat.isSymbolicLink()) {
        out.push({ relative: childRelative, stat });
      }
    }
  };
  visit('');
  return out;
}

async function copyFile(root: string, source: string, target: string): Promise<number> {
  let fd: number;
  try {
    fd = openInside(root, source, 'path', constants.O_RDONLY);
  } catch {
    return -1;
  }
  let out: number | null = null;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return -1;
    out = await openAsync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, stat.mode & 0o7777);
    const buffer = Buffer.alloc(CHUNK);
    let position = 0;
    for (;;) {
      const { bytesRead } = await readAsync(fd, buffer, 0, CHUNK, position);
      if (bytesRead === 0) break;
      let written = 0;
      while (written < bytesRead) written += (await writeAsync(out, buffer, written, bytesRead - written)).bytesWritten;
      position += bytesRead;
    }
    await closeAsync(out);
    out = null;
    await chmodAsync(target, stat.mode & 0o7777);
    await utimesAsync(target, stat.atime, stat.mtime);
    return position;
  } finally {
    closeSync(fd);
    if (out !== null) await closeAsync(out).catch(() => undefined);
  }
}

/** Copies `root` (a real scratch directory path) into the new directory `target`. */
export async function snapshotScratch(root: string, target: string, skip: ReadonlySet<string>, progress: SnapshotProgress): Promise<SnapshotResult> {
  const entries = walk(root, skip);
  const total = entries.filter((e) => !e.stat.isDirectory()).length;
  await mkdirAsync(target, { recursive: true, mode: 0o755 });
  progress(0, total);
  let copied = 0;
  let bytes = 0;
  const directories: Entry[] = [];
  for (const entry of entries) {
    const source = path.join(root, entry.relative);
    const destination = path.join(target, entry.relative);
    if (entry.stat.isDirectory()) {
      await mkdirAsync(destination, { mode: 0o755 });
      directories.push(entry);
      continue;
    }
    if (entry.stat.isSymbolicLink()) {
      try {
        await symlinkAsync(readlinkSync(source), destination);
      } catch {
        // vanished while copying
      }
    } else {
      const size = await copyFile(root, source, destination);
      if (size > 0) bytes += size;
    }
    copied += 1;
    progress(copied, total);
  }
  // Directory modes and times last, so writing into them above was possible.
  for (const entry of directories.reverse()) {
    const destination = path.join(target, entry.relative);
    await chmodAsync(destination, entry.stat.mode & 0o7777);
    await utimesAsync(destination, entry.stat.atime, entry.stat.mtime);
  }
  return { files: copied, bytes };
}
