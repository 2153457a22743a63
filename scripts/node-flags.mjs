// The Node.js flags Berth's process runs with. `npm start` passes them (package.json's start script spells them out;
// test/unit/node-flags.test.ts keeps the two in step) and every bench starts dist/server.mjs with them, as a user's
// Berth runs. V8 reads them when it creates the heap, so they cannot be set from inside the process.
//
// --max-semi-space-size=4: V8's young generation in semi-spaces of 4 MiB instead of 16. Berth's requests make
// short-lived garbage in bursts, and the default kept ~32 MiB of young generation resident after each: a tenth of
// the 300 MB budget. bench/memory.mjs, 27 Nov 2026: idle 291–299 → 267 MiB, after the workload 367–406 → 315; the
// app proxy (bench/apps.mjs) and the relay (bench/dashboard.mjs) measured no slower.
import path from 'node:path';

export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4'];

/** The command line of Berth's process as `npm start` runs it: these flags, `nodeArgs` (e.g. --cpu-prof), the server. */
export function serverCommand(root, ...nodeArgs) {
  return [...SERVER_NODE_FLAGS, ...nodeArgs, path.join(root, 'dist/server.mjs')];
}
