/**
 * One full, compacting garbage collection when a listener goes quiet after serving requests (`npm start`: the
 * manager's listener in the main thread, the dashboard's in its thread). A burst of requests or page renders grows
 * a heap's old generation; with nothing allocating after it V8 has no reason to collect again, so the burst's
 * garbage stays resident while the server idles (bench/memory.mjs, 2 Dec: 60 s after the workload the main
 * thread's heap held 66 MiB where it held 37 at idle, and the dashboard's 52 against 34). The next request comes
 * long after `quietMs`; a collection then costs tens of milliseconds of a thread nobody waits on.
 */
import type { EventEmitter } from 'node:events';
import { fullCollection } from './release-startup-memory';

/** Watches `server`'s requests and upgrades; returns the watch's end. */
export function collectWhenIdle(server: EventEmitter, quietMs: number): () => void {
  let served = 0;
  let seen = 0;
  let pending = false;
  const mark = () => served++;
  server.on('request', mark);
  server.on('upgrade', mark);
  // Requests came since the last look: collect after the first whole interval without any.
  const timer = setInterval(() => {
    if (served !== seen) {
      seen = served;
      pending = true;
    } else if (pending) {
      pending = false;
      fullCollection({ compact: true });
    }
  }, quietMs).unref();
  return () => {
    clearInterval(timer);
    server.off('request', mark);
    server.off('upgrade', mark);
  };
}
