/**
 * Background flushes of an upload's temporary file while its bytes arrive (./patch.ts).
 *
 * A completed upload is fsynced before it is acknowledged (./uploads.ts). On a machine with a lot of memory the kernel
 * starts no writeback of its own before gigabytes are dirty (vm.dirty_background_ratio), so that one fsync wrote the
 * whole upload after its last byte arrived: a single 1 GiB PATCH reached 0.78 of a plain copy, 0.95 with these
 * flushes (bench/storage.mjs, 28 Nov).
 */
import { close, constants, fdatasync, open } from 'node:fs';
import { promisify } from 'node:util';

const openFd = promisify(open);
const closeFd = promisify(close);
const fdatasyncFd = promisify(fdatasync);

/** Bytes written between two background flushes. */
export const FLUSH_EVERY_BYTES = 32 << 20;

let started = 0;

/**
 * Flushes the file's data through a descriptor of its own (fdatasync flushes the file, whichever descriptor names
 * it; the write stream closes its own as soon as it ends or fails). A failure is left to the fsync at completion.
 */
async function flushFile(file: string): Promise<void> {
  started++;
  try {
    const fd = await openFd(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      await fdatasyncFd(fd);
    } finally {
      await closeFd(fd);
    }
  } catch {
    // Gone (completed and renamed, or removed) or refused: the fsync at completion reports what the disk refuses.
  }
}

/**
 * Answers a function to call with the write position as bytes arrive: it starts a flush of `file` each time the
 * position passes `FLUSH_EVERY_BYTES` more, counted from a multiple of it (so 8 MiB PATCHes flush every fourth), one
 * at a time and never awaited. fdatasync runs on libuv's pool, so the disk writes while the network delivers.
 */
export function flushBehind(file: string, start: number): (position: number) => void {
  let flushedAt = start - (start % FLUSH_EVERY_BYTES);
  let inFlight = false;
  return (position) => {
    if (inFlight || position - flushedAt < FLUSH_EVERY_BYTES) return;
    flushedAt = position;
    inFlight = true;
    void flushFile(file).finally(() => {
      inFlight = false;
    });
  };
}

/** How many background flushes have started in this process (tests). */
export function backgroundFlushesStarted(): number {
  return started;
}
