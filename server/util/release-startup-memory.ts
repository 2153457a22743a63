/**
 * One full garbage collection once Berth is up. Start-up leaves hundreds of megabytes of garbage that V8 sees as
 * small objects and so does not hurry to collect: on a fresh data directory PGlite's initdb runs in a WebAssembly
 * instance of its own (≈400 MB of linear memory, dead once the database exists), and Next.js parses its manifests.
 * Until the next major GC, which an idle server may not run for hours, all of it stays resident.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function releaseStartupMemory(): void {
  fullCollection();
}

/**
 * A full collection of this thread's heap, now (./idle-collection runs one when a listener goes quiet). With
 * `compact`, every old-generation page is evacuated rather than only the most fragmented: a burst's survivors are
 * scattered over pages that otherwise stay resident, half empty, until V8's memory reducer compacts them on its own
 * schedule (bench/memory.mjs, 2 Dec: the manager's heap 60 MiB committed for ~20 s after a collection that left
 * 40 used). V8 reads the flag at each collection, so it applies to this one only.
 */
export function fullCollection({ compact = false } = {}): void {
  // `gc` exists only with --expose-gc; setting the flag at run time makes it available to a new context.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  if (compact) setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    if (compact) setFlagsFromString('--no-compact-on-every-full-gc');
  }
}
