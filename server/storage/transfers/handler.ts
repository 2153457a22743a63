/**
 * The storage transfer endpoints `/storage/upload` and `/storage/download` (CONTRACT §9.4), served on the manager
 * port but outside the signed API pipeline: bodies stream (tus PATCH bodies can be gigabytes), and the request is
 * authorized by its token, not by a signature.
 *
 * Every request re-checks, with the access check of server/storage/access.ts, that the token's user (by the
 * access key the token was issued to) still reaches the folder with enough permission: a share revoked after the
 * token was issued stops the transfer. Answers:
 * - no token, a bad signature or an expired token → 401 auth-failed;
 * - a token for the other operation → 403 generic-forbidden;
 * - a folder that is gone or no longer reachable → 404 object-not-found; too little permission → 403;
 * - an unknown upload session → 404 storage/no-such-upload-session; a missing file → 404 storage/file-not-found.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app';
import { Problem, notFound } from '../../http/problem';
import { folderById, requirePermission, requireStatus, type FolderAccess } from '../access';
import { allVolumes, findVolume, type StorageVolume } from '../hosts';
import { pathComponents } from '../../host-path/folder';
import { CORS_HEADERS, serveDownload } from './download';
import { fromProblem, noSuchUploadSession, sendProblem } from './respond';
import { verifyTransferToken, type TransferClaims, type TransferOp } from './tokens';
import { findUpload, serveTus, uploadComponents, UPLOAD_PATH } from './uploads';
import { endUploadQuota, holdUploadQuota } from './upload-quota';
import { patchUpload } from './patch';

export const DOWNLOAD_PATH = '/storage/download';
export const STORAGE_PREFIX = '/storage/';

const TUS_CORS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'Location, Upload-Offset, Upload-Length, Upload-Metadata, Upload-Defer-Length, Upload-Expires, Tus-Resumable, Tus-Version, Tus-Max-Size, Tus-Extension',
};

interface Authorized {
  claims: TransferClaims;
  access: FolderAccess;
  volume: StorageVolume;
}

async function authorize(app: App, url: URL, op: TransferOp): Promise<Authorized> {
  const verdict = await verifyTransferToken(app, url.searchParams.get('token'));
  if (verdict === 'missing') throw new Problem('auth-failed', 'A storage transfer needs its token: ?token=<JWT from request-upload or request-download>.');
  if (verdict === 'expired') throw new Problem('auth-failed', 'The transfer token has expired; request a new one.');
  if (verdict === 'invalid') throw new Problem('auth-failed', 'The transfer token is not valid.');
  if (verdict.op !== op) throw new Problem('generic-forbidden', `This token is for ${verdict.op === 'upload' ? 'an upload' : 'a download'}, not for this endpoint.`);
  const principal = await app.keypairs.get(verdict.ak);
  if (!principal || principal.userId !== verdict.sub) throw new Problem('auth-failed', 'The user this token was issued to can no longer sign in.');
  const access = await folderById(app, principal, verdict.vfid);
  const volume = findVolume(app, verdict.host);
  if (!access || !volume || access.folder.host !== verdict.host) throw notFound('No such virtual folder.', 'The folder of this token no longer exists or is no longer shared with you.');
  return { claims: verdict, access, volume };
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  sendProblem(res, fromProblem(new Problem('method-not-allowed', `Use ${allow} here.`, undefined, { headers: { Allow: allow } })), { Allow: allow, ...CORS_HEADERS });
}

async function handleUpload(app: App, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  if (method === 'OPTIONS') {
    // Discovery needs no session: any volume's tus server answers it (the same limits everywhere).
    const volume = allVolumes(app)[0];
    await serveTus(app, volume, req, res, null);
    return;
  }
  if (method !== 'HEAD' && method !== 'PATCH' && method !== 'DELETE') return methodNotAllowed(res, 'OPTIONS, HEAD, PATCH, DELETE');
  const { claims, access, volume } = await authorize(app, url, 'upload');
  requirePermission(access, 'rw');
  if (method !== 'HEAD') requireStatus(access.folder, 'updatable');
  const session = claims.session!;
  const components = uploadComponents(claims.relpath, url.searchParams.get('dst_dir'));
  const upload = await findUpload(app, volume, session);
  if (!upload) return sendProblem(res, noSuchUploadSession(), TUS_CORS);
  if (method !== 'PATCH') {
    await serveTus(app, volume, req, res, session);
    // A terminated session promises no bytes any more.
    if (method === 'DELETE') await endUploadQuota(app, session);
    return;
  }
  // The whole upload must fit into the quota scope (412 before any byte is taken); the hold spans its PATCHes.
  const done = await holdUploadQuota(app, access.folder, session, upload.size ?? claims.size!);
  try {
    await patchUpload(app, volume, req, res, upload, { folder: access.folder, components }, TUS_CORS);
  } finally {
    done();
  }
}

async function handleDownload(app: App, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  if (method === 'OPTIONS') {
    res.writeHead(204, { ...CORS_HEADERS, 'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS', 'Access-Control-Allow-Headers': 'Range, If-Range', 'Access-Control-Max-Age': '86400' });
    res.end();
    return;
  }
  if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(res, 'GET, HEAD, OPTIONS');
  const { claims, access } = await authorize(app, url, 'download');
  requirePermission(access, 'ro');
  requireStatus(access.folder, 'readable');
  const components = pathComponents(claims.relpath, 'path');
  const archive = url.searchParams.get('archive');
  await serveDownload(app, req, res, access.folder, components, {
    archive: archive === null ? claims.archive === true : archive === 'true' || archive === '1',
    noCache: url.searchParams.get('no_cache') === 'true' || url.searchParams.get('no_cache') === '1',
  });
}

/** Serves one request under /storage/; answers every failure itself. */
export function createStorageTransferHandler(app: App): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://storage.invalid');
    } catch {
      return sendProblem(res, fromProblem(new Problem('invalid-api-params', 'Malformed request URL.')));
    }
    const pathname = url.pathname.replace(/\/+$/, '');
    const cors = pathname === UPLOAD_PATH ? TUS_CORS : CORS_HEADERS;
    try {
      if (pathname === UPLOAD_PATH) await handleUpload(app, req, res, url);
      else if (pathname === DOWNLOAD_PATH) await handleDownload(app, req, res, url);
      else sendProblem(res, fromProblem(new Problem('url-not-found', `No storage endpoint at ${url.pathname}.`, url.pathname)));
    } catch (err) {
      if (err instanceof Problem) return sendProblem(res, fromProblem(err), { ...cors, ...err.headers });
      app.log.error({ err, path: url.pathname }, 'storage transfer failed');
      sendProblem(res, fromProblem(new Problem('internal-server-error', 'The storage transfer failed.')), cors);
    }
  };
}
