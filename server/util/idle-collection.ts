/**
 * One full garbage collection when a listener goes quiet after serving requests. The dashboard's thread
 * (web/thread-entry) renders pages in bursts; V8 sizes its old generation for the burst and, with no allocation
 * after it, has no reason to collect again, so the burst's garbage stays resident for as long as the dashboard is
 * idle (bench/memory.mjs: 60 s after the workload the dashboard's heap held ~35 MiB more than at idle). A person's
 * next click comes long after `quietMs`; a collection then costs a few milliseconds of a thread nobody waits on.
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
      fullCollection();
    }
  }, quietMs).unref();
  return () => {
    clearInterval(timer);
    server.off('request', mark);
    server.off('upgrade', mark);
  };
}
