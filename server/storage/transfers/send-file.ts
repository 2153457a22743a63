/**
 * Sends a byte range of an open file as an HTTP answer's body through two buffers used over and over: one is read
 * into while the other is written out.
 *
 * Why not a read stream: it allocates a new buffer for every read, so a 1 GiB download made 1 GiB of short-lived
 * buffers. V8 counts their bytes as external memory, and when that count grows between two young collections by
 * more than the old generation's headroom (a few MiB above Berth's ~45 MiB heap), it starts a full collection, then
 * the next, back to back: traces showed ~15 full collections a second for the whole download, ~3 CPU s per GiB
 * (docs/architecture.md, "Transfers"). Reused buffers allocate nothing per chunk.
 */
import { read } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';

const BUFFER_BYTES = 256 * 1024;

function readAt(fd: number, buffer: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buffer, 0, length, position, (err, bytes) => (err ? reject(err) : resolve(bytes))));
}

/** Writes `chunk` and resolves once the socket has taken it, so its buffer may be filled again; rejects if the answer closes first. */
function writeTaken(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (res.destroyed) return reject(new Error('the answer was closed'));
    const closed = () => reject(new Error('the answer was closed'));
    res.once('close', closed);
    res.write(chunk, (err) => {
      res.off('close', closed);
      if (err) reject(err);
      else resolve();
    });
  });
}

/**
 * Sends `length` bytes of `file` from `start`, ends the answer, and closes the file. A read error, or a file that
 * shrank meanwhile, cuts the connection (the answer's Content-Length promised more); a client gone stops the reads.
 * `sent` hears the size of every chunk written.
 */
export async function sendFileRange(file: FileHandle, res: ServerResponse, start: number, length: number, sent: (bytes: number) => void): Promise<void> {
  const buffers = [Buffer.allocUnsafeSlow(Math.min(BUFFER_BYTES, length)), Buffer.allocUnsafeSlow(Math.min(BUFFER_BYTES, length))];
  let position = start;
  let left = length;
  let writing: Promise<void> | null = null;
  try {
    for (let turn = 0; left > 0; turn ^= 1) {
      const buffer = buffers[turn];
      // This buffer's last write was awaited one turn ago.
      const bytes = await readAt(file.fd, buffer, Math.min(left, buffer.length), position);
      if (bytes === 0) throw new Error('the file shrank while it was sent');
      position += bytes;
      left -= bytes;
      await writing;
      writing = writeTaken(res, buffer.subarray(0, bytes));
      // Handled now (a close during the next read must not be an unhandled rejection); awaited next turn.
      writing.catch(() => undefined);
      sent(bytes);
    }
    await writing;
    res.end();
  } catch {
    res.destroy();
  } finally {
    await file.close().catch(() => undefined);
  }
}
