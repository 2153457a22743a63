/**
 * Resumable uploads (CONTRACT §9.4) with the tus reference server (@tus/server + @tus/file-store); PATCH itself is
 * served by ./patch.ts on the same store.
 *
 * - `request-upload` creates the upload session at once (an empty temporary file plus its record), so the client
 *   speaks only HEAD/PATCH to `{url}?token=`; the token's `session` claim names the session.
 * - Temporary files live in `<volume>/.uploads/` (mode 0700): outside every folder, on the same file system as the
 *   managed folders, so the final move is one atomic rename. A dropped connection leaves the bytes received so far
 *   in the temporary file; HEAD answers that offset and the client resumes from it.
 * - When the offset reaches `size`, the file is flushed to disk, handed to the kernel uid, and renamed into place
 *   through the path-safety module (parents created, symlinks never followed out of the folder); an existing
 *   regular file or symlink of that name is replaced atomically, a directory is not. For folders on another file
 *   system (unmanaged paths), the bytes are first copied to a hidden temporary name beside the target, then
 *   renamed. Whatever fails, nothing is left under the final name and the session is removed.
 */
import { constants } from 'node:fs';
import { chmod, mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Server, Upload } from '@tus/server';
import { FileConfigstore, FileStore } from '@tus/file-store';
import type { App } from '../../app';
import { Problem } from '../../http/problem';
import type { StorageVolume } from '../hosts';
import { folderOwnerUid } from '../hosts';
import { at, locate, pathComponents, problemOf, withRoot, type FolderRoot } from '../../host-path/folder';
import { folderRootPath } from '../usage';
import type { FolderRow } from '../access';
import { fromProblem, problemText } from './respond';
import { copyHandle } from '../clone';
import { endUploadQuota } from './upload-quota';

export const UPLOAD_PATH = '/storage/upload';
export const UPLOAD_DIR = '.uploads';
export const DEFAULT_MAX_UPLOAD_SIZE = 100 * 1024 ** 3;

export function maxUploadSize(): number {
  const configured = Number(process.env.BERTH_STORAGE_MAX_UPLOAD_SIZE);
  return Number.isFinite(configured) && configured > 0 ? Math.floor(configured) : DEFAULT_MAX_UPLOAD_SIZE;
}

/** What an upload session remembers (tus metadata: strings only). */
export interface UploadTarget {
  vfid: string;
  /** The path inside the folder, `/`-joined components (already checked lexically). */
  relpath: string;
}

interface VolumeUploads {
  server: Server;
  store: FileStore;
  dir: string;
  /** When abandoned sessions (older than the token lifetime) were last swept. */
  sweptAt: number;
}

const SWEEP_INTERVAL_MS = 3600 * 1000;

/** What a PATCH that completes an upload needs: the folder as authorized for that request. */
export interface FinishContext {
  folder: FolderRow;
  /** Components of the final path (dst_dir + relpath). */
  components: string[];
}

const volumesByApp = new WeakMap<App, Map<string, VolumeUploads>>();

function codeOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

/**
 * Upload records (`<session>.json`), read from disk once and remembered: every PATCH looks its session up twice
 * (the handler, then ./patch.ts under its lock), and a record changes only through this store. Sizes and offsets still come from the
 * temporary file itself (stat), so a record remembered here is never stale about the bytes received.
 */
class RememberedConfigstore extends FileConfigstore {
  private readonly known = new Map<string, Upload>();

  override async get(key: string): Promise<Upload | undefined> {
    const hit = this.known.get(key);
    if (hit) return hit;
    const value = await super.get(key);
    if (value) this.known.set(key, value);
    return value;
  }

  override async set(key: string, value: Upload): Promise<void> {
    await super.set(key, value);
    this.known.set(key, value);
  }

  override async delete(key: string): Promise<void> {
    this.known.delete(key);
    await super.delete(key);
  }
}

/** The tus server and store of a volume, created on first use. */
export async function uploadsOf(app: App, volume: StorageVolume): Promise<VolumeUploads> {
  let map = volumesByApp.get(app);
  if (!map) volumesByApp.set(app, (map = new Map()));
  const known = map.get(volume.host);
  if (known) return known;
  const dir = path.join(volume.path, UPLOAD_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const store = new FileStore({ directory: dir, configstore: new RememberedConfigstore(dir), expirationPeriodInMilliseconds: 24 * 3600 * 1000 });
  // Sessions are created by request-upload, never by a tus POST: advertise only what is served.
  store.extensions = ['termination', 'expiration'];
  const server = new Server({
    path: UPLOAD_PATH,
    datastore: store,
    maxSize: maxUploadSize(),
    // Sessions are created by request-upload only.
    namingFunction: () => {
      throw { status_code: 403, body: problemText(fromProblem(new Problem('generic-forbidden', 'Upload sessions are created with POST /folders/{name}/request-upload.'))) };
    },
    onResponseError: (_req, err) => {
      if (err instanceof Problem) return { status_code: err.status, body: problemText(fromProblem(err)) };
      return undefined;
    },
  });
  const entry: VolumeUploads = { server, store, dir, sweptAt: 0 };
  map.set(volume.host, entry);
  return entry;
}

/** Creates an upload session: an empty temporary file of the volume and its record. */
export async function createUploadSession(app: App, volume: StorageVolume, session: string, size: number, target: UploadTarget): Promise<void> {
  const uploads = await uploadsOf(app, volume);
  const { store } = uploads;
  if (Date.now() - uploads.sweptAt > SWEEP_INTERVAL_MS) {
    uploads.sweptAt = Date.now();
    // Sessions nobody finished within 24 h (their tokens have expired too): drop their temporary files.
    void uploads.server.cleanUpExpiredUploads().catch((err) => app.log.warn({ err, volume: volume.host }, 'could not sweep abandoned uploads'));
  }
  await store.create(new Upload({ id: session, size, offset: 0, metadata: { vfid: target.vfid, relpath: target.relpath }, creation_date: new Date().toISOString() }));
}

/** The session's upload (size, offset), or null when there is none. */
export async function findUpload(app: App, volume: StorageVolume, session: string): Promise<Upload | null> {
  const { store } = await uploadsOf(app, volume);
  try {
    return await store.getUpload(session);
  } catch {
    return null;
  }
}

/** Forgets a session and its temporary file. */
export async function removeUploadSession(store: FileStore, id: string): Promise<void> {
  await unlink(path.join(store.directory, id)).catch(() => undefined);
  await store.configstore.delete(id).catch(() => undefined);
}

/** Runs a tus request (OPTIONS, HEAD, DELETE) for an authorized session; PATCH is ./patch.ts. */
export async function serveTus(app: App, volume: StorageVolume, req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, session: string | null): Promise<void> {
  const { server } = await uploadsOf(app, volume);
  // The session is named by the token, not the URL: hand tus the URL it expects.
  req.url = session ? `${UPLOAD_PATH}/${session}` : UPLOAD_PATH;
  if (!req.headers['tus-resumable'] && req.method !== 'OPTIONS') req.headers['tus-resumable'] = '1.0.0';
  await server.handle(req, res);
}

/** Opens an entry of `dirFd` for writing, never following a link, creating it exclusively. */
async function createExclusive(dirFd: number, name: string) {
  return open(at(dirFd, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
}

async function syncDirectory(dirFd: number): Promise<void> {
  const handle = await open(at(dirFd), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } catch {
    // Some file systems do not sync directories; the rename itself is still atomic.
  } finally {
    await handle.close();
  }
}

/** Moves the temporary file `temp` to `name` in `dirFd`: one rename, or a copy beside it then a rename. */
async function placeFile(temp: string, dirFd: number, name: string, session: string, uid: number | null): Promise<void> {
  try {
    await rename(temp, at(dirFd, name));
    return;
  } catch (err) {
    if (codeOf(err) !== 'EXDEV') throw err;
  }
  const staging = `.${name.slice(0, 200)}.berth-upload-${session}`;
  const output = await createExclusive(dirFd, staging);
  try {
    const input = await open(temp, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      await copyHandle(input, output);
    } finally {
      await input.close();
    }
    await output.sync();
    if (uid !== null) await output.chown(uid, uid);
  } catch (err) {
    await output.close().catch(() => undefined);
    await unlink(at(dirFd, staging)).catch(() => undefined);
    throw err;
  }
  await output.close();
  try {
    await rename(at(dirFd, staging), at(dirFd, name));
  } catch (err) {
    await unlink(at(dirFd, staging)).catch(() => undefined);
    throw err;
  }
  await unlink(temp).catch(() => undefined);
}

/**
 * Completes an upload: flushes the temporary file, hands it to the kernel uid, and renames it to its final path
 * (checked with the path-safety module now, not when the upload was requested). Answers a problem, or null.
 */
export async function finishUpload(app: App, volume: StorageVolume, store: FileStore, upload: Upload, context: FinishContext) {
  const temp = path.join(store.directory, upload.id);
  try {
    return await placeUpload(app, volume, store, upload, context, temp);
  } finally {
    // Placed (its bytes now count in the folder) or dropped: either way the session holds no quota any more.
    await endUploadQuota(app, upload.id);
  }
}

async function placeUpload(app: App, volume: StorageVolume, store: FileStore, upload: Upload, context: FinishContext, temp: string) {
  try {
    const handle = await open(temp, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      await handle.sync();
      const uid = folderOwnerUid(app);
      if (uid !== null) await handle.chown(uid, uid);
      await handle.chmod(0o644);
    } finally {
      await handle.close();
    }
    await withRoot(folderRootPath(app, context.folder), (root) => placeInFolder(app, root, context.components, temp, upload.id));
    await store.configstore.delete(upload.id).catch(() => undefined);
    return null;
  } catch (err) {
    await removeUploadSession(store, upload.id);
    const problem = problemOf(err);
    if (problem instanceof Problem) return fromProblem(problem);
    app.log.error({ err, volume: volume.host, session: upload.id }, 'could not complete an upload');
    return fromProblem(new Problem('vfolder-operation-failed', 'The upload could not be moved into the folder.'));
  }
}

async function placeInFolder(app: App, root: FolderRoot, components: string[], temp: string, session: string): Promise<void> {
  if (!components.length) throw new Problem('invalid-api-params', 'path: must name a file, not the folder root', { path: 'must name a file' });
  const loc = await locate(root, components, 'path', { createParents: true, uid: folderOwnerUid(app) });
  try {
    if (loc.name === null) throw new Problem('invalid-api-params', 'path: must name a file, not the folder root', { path: 'must name a file' });
    if (loc.stat?.isDirectory()) throw new Problem('vfolder-operation-failed', `${loc.relative} is a directory; an upload cannot replace it.`);
    await placeFile(temp, loc.dirFd, loc.name, session, folderOwnerUid(app));
    await syncDirectory(loc.dirFd);
  } finally {
    await loc.close();
  }
}

/** Lexical check of an upload destination: `dst_dir` (optional) then `relpath`, as path components. */
export function uploadComponents(relpath: string, dstDir: string | null): string[] {
  const base = dstDir ? pathComponents(dstDir, 'dst_dir') : [];
  return [...base, ...pathComponents(relpath, 'path')];
}
