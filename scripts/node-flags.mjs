// The Node.js flags and the environment of Berth's process. `npm start` passes them (package.json's start script
// spells them out; test/unit/node-flags.test.ts keeps the two in step) and every bench starts dist/server.mjs with
// them, as a user's Berth runs. V8 reads the flags as it creates the heap and glibc its tunables as the process
// starts, so neither can be set from inside the process.
//
// --max-semi-space-size=4: V8's young generation in semi-spaces of 4 MiB instead of 16. Berth's requests make
// short-lived garbage in bursts, and the default kept ~32 MiB of young generation resident after each: a tenth of
// the 300 MB budget. bench/memory.mjs, 27 Nov 2026: idle 291–299 → 267 MiB, after the workload 367–406 → 315; the
// app proxy (bench/apps.mjs) and the relay (bench/dashboard.mjs) measured no slower.
//
// --flush-baseline-code: V8 drops a function's Sparkplug (baseline) code when it has not run for a while, as it
// already does bytecode. Rendering the dashboard's pages once compiles baseline code for thousands of functions that
// an idle process never runs again. bench/memory.mjs, 29 Nov 2026: V8's code 60 s after the workload 16–17 MiB in
// four runs without it, 14–15 in three with it.
//
// GLIBC_TUNABLES: glibc's malloc with at most two arenas and fixed mmap and trim thresholds of 128 KiB. By default
// every thread that allocates (V8's compiler and GC threads, libuv's pool) may get an arena of its own, up to 8 per
// core, and the thresholds adapt upwards after a large block is freed, so blocks of up to 32 MiB come from the heap
// and stay resident after they are freed. bench/memory.mjs, 27 Nov 2026: malloc's memory (its arenas and the brk
// heap) 80 MiB idle and 92 after the workload without them; with them 69–87 depending on the run, flat within a run.
import path from 'node:path';

export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4', '--flush-baseline-code'];

export const SERVER_ENV = { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072' };

/** The command line of Berth's process as `npm start` runs it: these flags, `nodeArgs` (e.g. --cpu-prof), the server. */
export function serverCommand(root, ...nodeArgs) {
  return [...SERVER_NODE_FLAGS, ...nodeArgs, path.join(root, 'dist/server.mjs')];
}
