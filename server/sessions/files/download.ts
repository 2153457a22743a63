/**
 * Downloads from a session's /home/work (CONTRACT §7.2). `download` answers multipart/mixed with one
 * application/x-tar part per requested path (a file, or a directory with everything under it; entries are named
 * from the path's last component, as `docker cp` names them); `download_single` answers one small file's bytes.
 * Everything is streamed from descriptors opened through the path-safety check, never buffered whole.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, read, readdirSync, readlinkSync, type Stats } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import tar from 'tar-stream';
import { badRequest } from '../../http/problem';
import { raw, type RawReply } from '../../http/route';
import { assertDirectoryInside, openInside, resolveInScratch } from '../../host-path/kernel-home';
import type { Scratch } from './scratch';

export const MAX_DOWNLOAD_FILES = 5;
/** download_single is for small files only (manager-api.md, Limits). */
export const MAX_SINGLE_DOWNLOAD_BYTES = 100 * 1024 * 1024;

const CHUNK = 64 * 1024;
const readAsync = promisify(read);

/**
 * Exactly `size` bytes of an open file, then closes it. A file that shrinks meanwhile is padded with zeros and
 * one that grows is cut, so the declared length (tar header, Content-Length) always holds.
 */
async function* readExactly(fd: number, size: number): AsyncGenerator<Buffer> {
  try {
    let position = 0;
    let eof = false;
    while (position < size) {
      const length = Math.min(CHUNK, size - position);
      const buffer = Buffer.alloc(length);
      let got = 0;
      if (!eof) {
        ({ bytesRead: got } = await readAsync(fd, buffer, 0, length, position));
        if (got === 0) eof = true;
      }
      const chunk = eof ? buffer : buffer.subarray(0, got);
      position += chunk.length;
      yield chunk;
    }
  } finally {
    closeSync(fd);
  }
}

function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** GET|POST /session/{name}/download_single?file= */
export function downloadSingle(scratch: Scratch, file: string): RawReply {
  const target = resolveInScratch(scratch.root, file, 'file', { followFinal: true });
  if (target.stat?.isDirectory()) throw badRequest(`file: ${target.kernelPath} is a directory; use download for directories`, { file: 'is a directory' });
  if (!target.stat?.isFile()) throw badRequest(`file: ${target.kernelPath} is not a regular file`, { file: 'not a regular file' });
  const fd = openInside(scratch.root, target.hostPath, 'file', constants.O_RDONLY);
  let size: number;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw badRequest(`file: ${target.kernelPath} is not a regular file`, { file: 'not a regular file' });
    if (stat.size > MAX_SINGLE_DOWNLOAD_BYTES) {
      throw badRequest(`file: download_single is for files of at most ${MAX_SINGLE_DOWNLOAD_BYTES} bytes; use download`, { file: 'too large' });
    }
    size = stat.size;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return raw('application/octet-stream', Readable.from(readExactly(fd, size)), {
    headers: { 'Content-Length': String(size), 'Content-Disposition': contentDisposition(path.posix.basename(target.kernelPath)) },
  });
}

type Source =
  | { kind: 'file'; name: string; fd: number; stat: Stats }
  | { kind: 'directory'; name: string; hostPath: string; stat: Stats };

/** GET|POST /session/{name}/download?files=[…]: every path is checked (and files opened) before the answer starts. */
export function downloadArchive(scratch: Scratch, files: string[]): RawReply {
  if (files.length === 0) throw badRequest('files: name at least one path', { files: 'required' });
  if (files.length > MAX_DOWNLOAD_FILES) throw badRequest(`files: at most ${MAX_DOWNLOAD_FILES} paths per download`, { files: 'too many files' });
  const sources: Source[] = [];
  try {
    for (const file of files) {
      const target = resolveInScratch(scratch.root, file, 'files', { followFinal: true });
      const name = target.relative === '' ? 'work' : path.posix.basename(target.relative);
      if (target.stat?.isDirectory()) {
        assertDirectoryInside(scratch.root, target.hostPath, 'files');
        sources.push({ kind: 'directory', name, hostPath: target.hostPath, stat: target.stat });
      } else if (target.stat?.isFile()) {
        const fd = openInside(scratch.root, target.hostPath, 'files', constants.O_RDONLY);
        sources.push({ kind: 'file', name, fd, stat: fstatSync(fd) });
      } else {
        throw badRequest(`files: ${target.kernelPath} is neither a file nor a directory`, { files: 'not a regular file' });
      }
    }
  } catch (err) {
    for (const source of sources) if (source.kind === 'file') closeSync(source.fd);
    throw err;
  }
  const boundary = `berth-${randomBytes(16).toString('hex')}`;
  return raw(`multipart/mixed; boundary=${boundary}`, Readable.from(multipart(scratch, boundary, sources)));
}

async function* multipart(scratch: Scratch, boundary: string, sources: Source[]): AsyncGenerator<Buffer> {
  const untaken = new Set(sources);
  let pack: tar.Pack | null = null;
  try {
    for (const source of sources) {
      yield Buffer.from(
        `--${boundary}\r\nContent-Type: application/x-tar\r\nContent-Disposition: ${contentDisposition(`${source.name}.tar`)}\r\n\r\n`,
      );
      const current = tar.pack();
      // Failures reach the reader through the iteration below; an abort after it has stopped is expected.
      current.on('error', () => undefined);
      pack = current;
      untaken.delete(source);
      const filling = fill(scratch, current, source).then(
        () => current.finalize(),
        (err: Error) => current.destroy(err),
      );
      for await (const chunk of current) yield Buffer.from(chunk as Uint8Array);
      await filling;
      pack = null;
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  } finally {
    // The client went away, or a part failed: stop the walk and release descriptors not reached.
    pack?.destroy(new Error('download aborted'));
    for (const source of untaken) if (source.kind === 'file') closeSync(source.fd);
  }
}

function header(name: string, stat: Stats, type: 'file' | 'directory' | 'symlink', extra: Partial<tar.Header> = {}): tar.Header {
  return {
    name,
    type,
    mode: stat.mode & 0o7777,
    mtime: stat.mtime,
    size: type === 'file' ? stat.size : 0,
    uid: stat.uid,
    gid: stat.gid,
    uname: 'work',
    gname: 'work',
    linkname: '',
    devmajor: 0,
    devminor: 0,
    ...extra,
  };
}

async function fill(scratch: Scratch, pack: tar.Pack, source: Source): Promise<void> {
  if (source.kind === 'file') {
    await addFile(pack, source.name, source.fd, source.stat);
    return;
  }
  await addDirectory(scratch, pack, source.name, source.hostPath, source.stat);
}

async function addFile(pack: tar.Pack, name: string, fd: number, stat: Stats): Promise<void> {
  let done!: (err?: Error | null) => void;
  const finished = new Promise<void>((resolve, reject) => (done = (err) => (err ? reject(err) : resolve())));
  // An aborted download fails the entry while a read is pending: the failure is awaited below, not lost.
  finished.catch(() => undefined);
  const sink = pack.entry(header(name, stat, 'file'), (err) => done(err));
  for await (const chunk of readExactly(fd, stat.size)) {
    if (sink.destroying) break;
    if (!sink.write(chunk)) await drained(sink);
  }
  sink.end(null);
  await finished;
}

/** Resolves when the entry can take more data, or when it is destroyed (the download was aborted). */
function drained(sink: ReturnType<tar.Pack['entry']>): Promise<void> {
  if (sink.destroying) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      sink.off('drain', done);
      sink.off('close', done);
      resolve();
    };
    sink.on('drain', done);
    sink.on('close', done);
  });
}

function addEntry(pack: tar.Pack, entry: tar.Header): Promise<void> {
  return new Promise((resolve, reject) => pack.entry(entry, (err) => (err ? reject(err) : resolve())));
}

/**
 * A directory and everything under it. Symlinks are stored as links, never followed; fifos, sockets and devices
 * are left out; entries that vanish or move out of the scratch directory while the walk runs are skipped.
 */
async function addDirectory(scratch: Scratch, pack: tar.Pack, name: string, hostPath: string, stat: Stats): Promise<void> {
  await addEntry(pack, header(`${name}/`, stat, 'directory'));
  try {
    assertDirectoryInside(scratch.root, hostPath, 'files');
  } catch {
    return;
  }
  let entries: string[];
  try {
    entries = readdirSync(hostPath).sort();
  } catch {
    return;
  }
  for (const entry of entries) {
    const childPath = path.join(hostPath, entry);
    const childName = `${name}/${entry}`;
    let child: Stats;
    try {
      child = lstatSync(childPath);
    } catch {
      continue;
    }
    if (child.isDirectory()) {
      await addDirectory(scratch, pack, childName, childPath, child);
    } else if (child.isSymbolicLink()) {
      let linkname: string;
      try {
        linkname = readlinkSync(childPath);
      } catch {
        continue;
      }
      await addEntry(pack, header(childName, child, 'symlink', { linkname }));
    } else if (child.isFile()) {
      let fd: number;
      try {
        fd = openInside(scratch.root, childPath, 'files', constants.O_RDONLY);
      } catch {
        continue;
      }
      const opened = fstatSync(fd);
      if (!opened.isFile()) {
        closeSync(fd);
        continue;
      }
      await addFile(pack, childName, fd, opened);
    }
  }
}
