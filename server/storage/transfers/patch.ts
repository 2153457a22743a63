/**
 * tus 1.0.0 PATCH (CONTRACT §9.4) on the upload sessions of ./uploads.ts (@tus/file-store records and temporary
 * files; @tus/server still answers OPTIONS, HEAD and DELETE). Served here because @tus/server 2 turns every request
 * body into a web stream and back, several stream stages per chunk: the request is piped straight into the temporary
 * file instead, which is what brings a chunked upload near a plain loopback copy.
 *
 * The protocol rules kept: `Content-Type: application/offset+octet-stream` (else 415); `Upload-Offset` equal to the
 * bytes received (else 409, nothing written); never more bytes than the announced size (413); one PATCH of a session
 * at a time (a resumed PATCH waits until the dropped one has ended); 204 with the new `Upload-Offset`. A dropped
 * connection keeps the bytes that arrived (HEAD answers that offset); the file reaches its final name only when
 * complete, by ./uploads.ts `finishUpload`.
 */
import { constants, createWriteStream, open } from 'node:fs';
import { promisify } from 'node:util';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Upload } from '@tus/server';
import type { App } from '../../app';
import { PROBLEM_BASE, Problem } from '../../http/problem';
import type { StorageVolume } from '../hosts';
import { problemOf } from '../../host-path/folder';
import { fromProblem, noSuchUploadSession, sendProblem, type ProblemBody } from './respond';
import { finishUpload, uploadsOf, type FinishContext } from './uploads';
import { countStorageBytes } from '../../metrics/storage';
import { oneAtATime } from '../../util/one-at-a-time';
import { withGcHeadroom } from '../../util/gc-headroom';
import { flushBehind } from './flush-behind';

const OFFSET_TYPE = 'application/offset+octet-stream';
const EXPIRY_MS = 24 * 3600 * 1000;

const openFd = promisify(open);

/** Runs `fn` after every earlier PATCH of the session has ended. */
const afterEarlierPatches = oneAtATime<App>();

function offsetConflict(expected: number, given: number): ProblemBody {
  return {
    status: 409,
    type: `${PROBLEM_BASE}invalid-api-params`,
    title: 'Upload-Offset conflict.',
    detail: `The upload has ${expected} bytes, not ${given}: ask with HEAD and resume from there.`,
  };
}

/** Passes at most `limit` bytes, and fails past it. */
function limitTo(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      callback(seen > limit ? new Problem('payload-too-large', `The upload takes at most ${limit} more bytes.`) : null, chunk);
    },
  });
}

/** Appends the request body at `offset` of the temporary file; answers the new offset. */
async function append(req: IncomingMessage, file: string, offset: number, room: number): Promise<number> {
  // A numeric descriptor: fs callbacks per write, not the promise machinery of a FileHandle stream (less garbage);
  // 1 MiB buffered before backpressure pauses the socket, so bytes land in few large writev calls.
  const fd = await openFd(file, constants.O_WRONLY | constants.O_NOFOLLOW);
  const out = createWriteStream('', { fd, start: offset, highWaterMark: 1 << 20 });
  // Positions by the bytes received: the stream's own count lags a write behind, so a PATCH's last step would pass
  // only after its last byte.
  const flush = flushBehind(file, offset);
  let received = offset;
  const onData = (chunk: Buffer) => flush((received += chunk.length));
  req.on('data', onData);
  try {
    // With a Content-Length, Node delivers exactly that many bytes (checked against the room beforehand).
    await withGcHeadroom(() => (req.headers['content-length'] !== undefined ? pipeline(req, out) : pipeline(req, limitTo(room), out)));
  } catch (err) {
    if (err instanceof Problem) throw err;
    // The storage failed (ENOSPC, EDQUOT, EIO…): not a success, whatever was written.
    if ((err as NodeJS.ErrnoException).syscall) throw problemOf(err);
    // The client went away: what was written stays, and HEAD tells the client where to resume.
  } finally {
    req.off('data', onData);
  }
  return offset + out.bytesWritten;
}

export async function patchUpload(
  app: App,
  volume: StorageVolume,
  req: IncomingMessage,
  res: ServerResponse,
  upload: Upload,
  finish: FinishContext,
  headers: Record<string, string>,
): Promise<void> {
  const contentType = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (contentType !== OFFSET_TYPE) throw new Problem('unsupported-media-type', `A tus PATCH carries Content-Type: ${OFFSET_TYPE}.`);
  const offsetHeader = req.headers['upload-offset'];
  if (typeof offsetHeader !== 'string' || !/^\d+$/.test(offsetHeader)) throw new Problem('invalid-api-params', 'Upload-Offset must be a number of bytes.', { 'upload-offset': 'missing or invalid' });
  const given = Number(offsetHeader);
  const lengthHeader = req.headers['content-length'];
  const length = lengthHeader === undefined ? null : Number(lengthHeader);
  const { store } = await uploadsOf(app, volume);
  const ended = await afterEarlierPatches(app, upload.id, async (): Promise<ProblemBody | number> => {
    let current: Upload;
    try {
      current = await store.getUpload(upload.id);
    } catch {
      return noSuchUploadSession();
    }
    const size = current.size ?? 0;
    if (current.creation_date && Date.parse(current.creation_date) + EXPIRY_MS < Date.now()) return noSuchUploadSession('The upload session has expired.');
    if (current.offset !== given) return offsetConflict(current.offset, given);
    if (length !== null && given + length > size) return fromProblem(new Problem('payload-too-large', `The upload takes at most ${size - given} more bytes.`));
    const offset = await append(req, path.join(store.directory, upload.id), given, size - given);
    countStorageBytes(app, 'upload', offset - given);
    if (offset === size) {
      const problem = await finishUpload(app, volume, store, current, finish);
      if (problem) return problem;
    }
    return offset;
  });
  if (typeof ended !== 'number') return sendProblem(res, ended, headers);
  const answer: Record<string, string> = { ...headers, 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(ended) };
  if (upload.creation_date && ended < (upload.size ?? 0)) answer['Upload-Expires'] = new Date(Date.parse(upload.creation_date) + EXPIRY_MS).toUTCString();
  res.writeHead(204, answer);
  res.end();
}
