/**
 * Downloads (CONTRACT §9.4): a file with Content-Disposition (RFC 6266, `filename*`), byte ranges (206, 416) and
 * HEAD; a directory with `archive=true` as a zip streamed entry by entry (never built in memory: the walk waits for
 * each entry to be written before opening the next file, so a slow client slows the walk); a directory without it
 * → 400; a missing file → 404 storage/file-not-found.
 *
 * The target is resolved with the path-safety module (a symlink is followed only while it stays inside the
 * folder); files are opened with O_NOFOLLOW relative to their directory's descriptor. Inside a zip, symlinks are
 * stored as symlinks (never followed), directories on another file system (mount points) are stored empty, and
 * anything that is neither a file, a directory nor a symlink is left out.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, readlink, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZipArchive } from 'archiver';
import type { App } from '../../app';
import { Problem } from '../../http/problem';
import type { FolderRow } from '../access';
import { FolderRoot, at, locate, problemOf } from '../../host-path/folder';
import { folderRootPath } from '../usage';
import { fileNotFound, fromProblem, sendProblem, type ProblemBody } from './respond';
import { countStorageBytes, countStreamBytes } from '../../metrics/storage';
import { sendFileRange } from './send-file';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: a FIFO swapped in for a file must not hang the open.
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Content-Disposition, Content-Length, Content-Range, Accept-Ranges, Last-Modified, ETag',
};

export interface DownloadOptions {
  archive: boolean;
  noCache: boolean;
}

/** `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266 / RFC 8187). */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_') || 'download';
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

type RangeResult = { start: number; end: number } | 'unsatisfiable' | null;

/** One `bytes=` range of a file of `size` bytes; null: serve the whole file (no range, several, or malformed). */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return null;
  const m = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header.trim());
  if (!m) return null;
  const [, first, last] = m;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return null;
  return { start, end };
}

function etagOf(stat: Stats): string {
  return `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}-${stat.ino.toString(16)}"`;
}

function asProblem(err: unknown, relative: string): ProblemBody {
  const problem = problemOf(err);
  if (problem instanceof Problem) {
    if (problem.status === 404) return fileNotFound(`${relative || '.'} does not exist in the folder.`);
    return fromProblem(problem);
  }
  throw err;
}

/** Serves GET/HEAD of a download token's target. */
export async function serveDownload(app: App, req: IncomingMessage, res: ServerResponse, folder: FolderRow, components: string[], options: DownloadOptions): Promise<void> {
  const relative = components.join('/');
  let root: FolderRoot;
  try {
    root = await FolderRoot.open(folderRootPath(app, folder));
  } catch (err) {
    return sendProblem(res, asProblem(err, relative), CORS_HEADERS);
  }
  let keepRoot = false;
  try {
    let file: FileHandle | null = null;
    let dir: { fd: number; close: () => Promise<void>; stat: Stats; name: string } | null = null;
    try {
      const loc = await locate(root, components, 'path', { followFinal: true });
      try {
        if (!loc.stat) return sendProblem(res, fileNotFound(`${relative || '.'} does not exist in the folder.`), CORS_HEADERS);
        if (loc.name === null) {
          dir = { fd: root.fd, close: async () => undefined, stat: loc.stat, name: folder.name };
        } else if (loc.stat.isDirectory()) {
          const handle = await open(at(loc.dirFd, loc.name), DIR_FLAGS);
          dir = { fd: handle.fd, close: () => handle.close(), stat: await handle.stat(), name: loc.name };
        } else {
          file = await open(at(loc.dirFd, loc.name), FILE_FLAGS);
        }
      } finally {
        await loc.close();
      }
    } catch (err) {
      await file?.close().catch(() => undefined);
      return sendProblem(res, asProblem(err, relative), CORS_HEADERS);
    }
    if (file) {
      await serveFile(app, req, res, file, components[components.length - 1], options);
      return;
    }
    if (!dir) return;
    if (!options.archive) {
      await dir.close();
      return sendProblem(res, fromProblem(new Problem('invalid-api-params', `${relative || 'The folder root'} is a directory; request it with archive=true to download it as a zip.`, { archive: 'required for a directory' })), CORS_HEADERS);
    }
    keepRoot = true;
    const d = dir;
    void streamZip(app, req, res, d.fd, root.dev, `${d.name}.zip`, options).finally(async () => {
      await d.close().catch(() => undefined);
      await root.close().catch(() => undefined);
    });
  } finally {
    if (!keepRoot) await root.close().catch(() => undefined);
  }
}

async function serveFile(app: App, req: IncomingMessage, res: ServerResponse, file: FileHandle, name: string, options: DownloadOptions): Promise<void> {
  let handed = false;
  try {
    const stat = await file.stat();
    if (!stat.isFile()) {
      return sendProblem(res, fromProblem(new Problem('vfolder-operation-failed', `${name} is not a regular file.`)), CORS_HEADERS);
    }
    // The open was non-blocking only for the FIFO case; reads of a regular file are unaffected.
    const size = stat.size;
    const lastModified = stat.mtime.toUTCString();
    const etag = etagOf(stat);
    const headers: Record<string, string> = {
      ...CORS_HEADERS,
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': contentDisposition(name),
      'Accept-Ranges': 'bytes',
      'Last-Modified': lastModified,
      ETag: etag,
      'Cache-Control': options.noCache ? 'no-store' : 'private, no-cache',
    };
    let range = parseRange(req.headers.range, size);
    const ifRange = req.headers['if-range'];
    if (range && ifRange && ifRange !== etag && ifRange !== lastModified) range = null;
    if (range === 'unsatisfiable') {
      res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}`, 'Content-Length': '0' });
      res.end();
      return;
    }
    const start = range ? range.start : 0;
    const end = range ? range.end : size - 1;
    const length = size === 0 ? 0 : end - start + 1;
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    headers['Content-Length'] = String(length);
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return;
    }
    handed = true;
    void sendFileRange(file, res, start, length, (bytes) => countStorageBytes(app, 'download', bytes));
  } finally {
    if (!handed) await file.close().catch(() => undefined);
  }
}

async function streamZip(app: App, req: IncomingMessage, res: ServerResponse, dirFd: number, dev: number, name: string, options: DownloadOptions): Promise<void> {
  res.writeHead(200, {
    ...CORS_HEADERS,
    'Content-Type': 'application/zip',
    'Content-Disposition': contentDisposition(name),
    'Accept-Ranges': 'none',
    'Cache-Control': options.noCache ? 'no-store' : 'private, no-cache',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  // Loaded by the first folder downloaded as a zip: archiver's ~75 modules are code most managers seldom run.
  const { ZipArchive: Zip } = await import('archiver');
  const archive = new Zip({ zlib: { level: 1 } });
  const stop = new AbortController();
  let closed = false;
  archive.on('error', (err) => stop.abort(err));
  archive.on('warning', (err) => app.log.warn({ err }, 'zip download warning'));
  res.on('close', () => {
    closed = true;
    stop.abort();
  });
  archive.pipe(res);
  countStreamBytes(app, 'download', archive);
  const walker = new ZipWalker(archive, dev, stop.signal);
  try {
    await walker.addTree(dirFd, '');
    if (stop.signal.aborted) throw new Error('the download was abandoned');
    await archive.finalize();
  } catch (err) {
    if (!closed) app.log.warn({ err }, 'zip download aborted');
    archive.abort();
    // A truncated zip must not look complete: cut the connection instead of ending the response.
    res.destroy();
  }
}

class ZipWalker {
  constructor(
    private readonly archive: ZipArchive,
    private readonly dev: number,
    private readonly signal: AbortSignal,
  ) {}

  /** Runs `put` (one append) and waits until the archive has written that entry, failed, or was abandoned. */
  private settle(put: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        this.archive.off('entry', onEntry);
        this.archive.off('error', onError);
        this.signal.removeEventListener('abort', onAbort);
      };
      const onEntry = () => {
        cleanup();
        resolve();
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      const onAbort = () => {
        cleanup();
        reject(new Error('the download was abandoned'));
      };
      if (this.signal.aborted) return onAbort();
      this.archive.on('entry', onEntry);
      this.archive.on('error', onError);
      this.signal.addEventListener('abort', onAbort);
      put();
    });
  }

  private add(source: Buffer | NodeJS.ReadableStream, data: Record<string, unknown>): Promise<void> {
    return this.settle(() => this.archive.append(source as Buffer, data as { name: string }));
  }

  async addTree(dirFd: number, prefix: string): Promise<void> {
    const names = (await readdir(at(dirFd))).sort();
    for (const name of names) {
      if (this.signal.aborted) return;
      const entryName = prefix + name;
      let stat: Stats;
      try {
        stat = await lstat(at(dirFd, name));
      } catch {
        continue; // removed meanwhile
      }
      if (stat.isSymbolicLink()) {
        const target = await readlink(at(dirFd, name)).catch(() => null);
        if (target === null) continue;
        await this.settle(() => this.archive.symlink(entryName, target, stat.mode & 0o777));
      } else if (stat.isDirectory()) {
        let handle: FileHandle;
        try {
          handle = await open(at(dirFd, name), DIR_FLAGS);
        } catch {
          continue; // replaced by something else meanwhile: not followed
        }
        try {
          const own = await handle.stat();
          await this.add(Buffer.alloc(0), { name: `${entryName}/`, type: 'directory', mode: own.mode & 0o7777, date: own.mtime });
          if (own.dev === this.dev) await this.addTree(handle.fd, `${entryName}/`);
        } finally {
          await handle.close();
        }
      } else if (stat.isFile()) {
        let handle: FileHandle;
        try {
          handle = await open(at(dirFd, name), FILE_FLAGS);
        } catch {
          continue;
        }
        let own: Stats;
        try {
          own = await handle.stat();
        } catch (err) {
          await handle.close();
          throw err;
        }
        if (!own.isFile()) {
          await handle.close();
          continue;
        }
        const stream = handle.createReadStream({ autoClose: true });
        try {
          await this.add(stream, { name: entryName, mode: own.mode & 0o7777, date: own.mtime });
        } finally {
          stream.destroy();
        }
      }
    }
  }
}
