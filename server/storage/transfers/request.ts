/**
 * `POST /folders/{name}/request-upload` and `request-download` (CONTRACT §9.4): check the caller's access now,
 * and hand out a token and the URL of the manager's storage endpoint.
 *
 * - Upload: permission `rw` or more on an updatable folder, host permission `upload-file`, a size within
 *   Tus-Max-Size and within the quota scope (412 quota-exceeded, nothing created), and a path that is not the
 *   folder root, not an existing directory, and does not lead outside the folder. The upload session (an empty
 *   temporary file outside the folder) is created here.
 * - Download: permission `ro` or more on a readable folder, host permission `download-file`; whether the file
 *   exists is answered by the download itself (404 storage/file-not-found).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { App } from '../../app';
import type { Principal } from '../../auth/principal';
import { Problem, badRequest } from '../../http/problem';
import { folderFor } from '../access';
import { requireFolderHostPermission } from '../host-permissions';
import { volumeOf } from '../hosts';
import { toHex32 } from '../ids';
import { assertQuota } from '../quota';
import { locate, pathComponents, withRoot } from '../../host-path/folder';
import { folderRootPath } from '../usage';
import { signTransferToken } from './tokens';
import { createUploadSession, maxUploadSize, UPLOAD_PATH } from './uploads';
import { DOWNLOAD_PATH } from './handler';

/** `http://<host>:<manager port>`: the host the caller reached the manager by, and the manager's own port. */
export function storageBaseUrl(app: App, req: IncomingMessage): string {
  let hostname = app.settings.host;
  const header = req.headers.host;
  if (header) {
    try {
      hostname = new URL(`http://${header}`).hostname;
    } catch {
      // A malformed Host header: fall back to the configured address.
    }
  }
  if (hostname === '0.0.0.0' || hostname === '::' || hostname === '[::]') hostname = '127.0.0.1';
  if (hostname.includes(':') && !hostname.startsWith('[')) hostname = `[${hostname}]`;
  const port = req.socket.localPort ?? app.settings.managerPort;
  return `http://${hostname}:${port}`;
}

export interface UploadRequest {
  name: string;
  path: string;
  size: number;
}

export async function requestUpload(app: App, caller: Principal, req: IncomingMessage, input: UploadRequest): Promise<{ token: string; url: string }> {
  const components = pathComponents(input.path, 'path');
  if (!components.length) throw badRequest('path: must name a file, not the folder root', { path: 'must name a file' });
  const size = input.size;
  if (!Number.isSafeInteger(size) || size < 0) throw badRequest('size: must be a number of bytes (0 or more)', { size: 'must be a non-negative integer' });
  const max = maxUploadSize();
  if (size > max) throw badRequest(`size: uploads are limited to ${max} bytes`, { size: `at most ${max}` });
  const access = await folderFor(app, caller, input.name, 'rw', 'updatable');
  const folder = access.folder;
  await requireFolderHostPermission(app, caller, folder, 'upload-file');
  await assertQuota(app, folder, size);
  // Refuse now what the final move would refuse: a path through a symlink leading out, or an existing directory.
  await withRoot(folderRootPath(app, folder), async (root) => {
    let loc;
    try {
      loc = await locate(root, components, 'path');
    } catch (err) {
      if (err instanceof Problem && err.status === 404) return; // missing parents are created when the upload completes
      throw err;
    }
    try {
      if (loc.stat?.isDirectory()) throw new Problem('vfolder-operation-failed', `${loc.relative} is a directory; an upload cannot replace it.`);
    } finally {
      await loc.close();
    }
  });
  const volume = volumeOf(app, folder.host);
  const session = randomUUID();
  const vfid = toHex32(folder.id);
  const relpath = components.join('/');
  await createUploadSession(app, volume, session, size, { vfid, relpath });
  const token = await signTransferToken(app, { op: 'upload', volume: volume.volume, host: volume.host, vfid, relpath, size, session, sub: caller.userId, ak: caller.accessKey });
  return { token, url: `${storageBaseUrl(app, req)}${UPLOAD_PATH}` };
}

export interface DownloadRequest {
  name: string;
  path: string;
  archive: boolean;
}

export async function requestDownload(app: App, caller: Principal, req: IncomingMessage, input: DownloadRequest): Promise<{ token: string; url: string }> {
  const components = pathComponents(input.path, 'path');
  const access = await folderFor(app, caller, input.name, 'ro', 'readable');
  const folder = access.folder;
  await requireFolderHostPermission(app, caller, folder, 'download-file');
  const volume = volumeOf(app, folder.host);
  const token = await signTransferToken(app, {
    op: 'download', volume: volume.volume, host: volume.host, vfid: toHex32(folder.id), relpath: components.join('/'), archive: input.archive, sub: caller.userId, ak: caller.accessKey,
  });
  return { token, url: `${storageBaseUrl(app, req)}${DOWNLOAD_PATH}` };
}
