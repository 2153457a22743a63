/**
 * Old-generation headroom while request bodies stream in (tus PATCH uploads).
 *
 * node:http hands every piece of a request body to JavaScript as a new buffer, and V8 counts those bytes as external
 * memory. V8 starts a full (mark-compact) collection once the external memory gained since the last one, plus the
 * young generation, would fill the old generation's headroom. An idle Berth has a small headroom: V8 sizes it from
 * how fast the old generation grew lately, which is slowly, so it is the ~45 MiB heap × 1.1–1.3, about 10 MiB. An
 * upload passes that in ~20 ms of bytes, before a young collection frees them (V8 runs one per 32 MiB of buffers),
 * so full collections ran back to back for the whole upload: ~15 a second, 25 ms each, ~4 CPU s per GiB against
 * a bare server's 1.2 (bench/storage.mjs, docs/architecture.md "Transfers").
 *
 * While a transfer runs, V8's growing factor is pinned at 2 (`--heap-growing-percent=100`): the next collection
 * sets a headroom of the whole live heap, which young collections keep ahead of. When the last transfer ends the
 * factor is V8's own again, from the next collection on, so the idle heap stays as small as before. V8 reads the
 * flag at every limit computation, so setting it at run time takes effect (a process-wide flag would also widen
 * the idle heap's headroom: +26 MiB after bench/memory.mjs's workload).
 */
import { setFlagsFromString } from 'node:v8';

let running = 0;

/** Runs `transfer` with the wider headroom; nested and concurrent transfers share it. */
export async function withGcHeadroom<T>(transfer: () => Promise<T>): Promise<T> {
  if (running++ === 0) setFlagsFromString('--heap-growing-percent=100');
  try {
    return await transfer();
  } finally {
    if (--running === 0) setFlagsFromString('--heap-growing-percent=0');
  }
}

/** How many transfers hold the headroom now (tests). */
export function gcHeadroomHolders(): number {
  return running;
}
