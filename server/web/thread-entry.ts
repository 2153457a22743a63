/**
 * The dashboard's worker thread (dist/web-thread.mjs; ./thread.ts starts it): Next.js and the custom server of
 * ./next-server, listening on the dashboard's port, reaching the manager at `managerUrl` like any other client.
 * Only what the dashboard needs is loaded here (this entry is bundled apart from the manager core), so the
 * thread's heap holds Next and nothing of the manager's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Transport } from '../client/client';
import { listen, type Listening } from '../http/listen';
import { createLogger } from '../util/logger';
import { collectWhenIdle } from '../util/idle-collection';
import { releaseStartupMemory } from '../util/release-startup-memory';
import { createWebServer } from './next-server';
import { portTransport } from './manager-port';
import type { FromWebThread, ToWebThread, WebThreadStart } from './thread-messages';
import { warmUpDashboard } from './warm-up';

const data = workerData as WebThreadStart;
const port = parentPort!;
// Picked up by the dashboard's manager client (app/lib/manager.ts), which Next bundles apart from this entry.
(globalThis as typeof globalThis & { __berthManagerTransport?: Transport }).__berthManagerTransport = portTransport(data.managerPort);
const post = (message: FromWebThread) => port.postMessage(message);

async function main(): Promise<Listening> {
  const log = createLogger(data.logLevel);
  const host = { settings: { dataDir: data.dataDir, host: data.host }, log };
  const web = await listen(await createWebServer(host, data.managerUrl, data.projectDir), data.port, data.host);
  if (data.warmUp) {
    await warmUpDashboard(web.server, log);
    // This thread's heap is its own: the main thread's collection leaves Next's start-up garbage here.
    releaseStartupMemory();
  }
  if (data.idleCollectionMs) collectWhenIdle(web.server, data.idleCollectionMs);
  return web;
}

main().then(
  (web) => {
    port.on('message', (message: ToWebThread) => {
      if (message.kind === 'close') void web.close(message.graceMs).then(() => post({ kind: 'closed' }));
    });
    post({ kind: 'listening', url: web.url });
  },
  (err: unknown) => post({ kind: 'failed', message: err instanceof Error ? err.message : String(err) }),
);
