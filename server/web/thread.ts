/**
 * The dashboard in a worker thread of the one Berth process (`npm start`; docs/architecture.md "The dashboard's
 * thread"). Next.js patches process-wide globals as it loads (setImmediate, process.nextTick, Math.random,
 * node:crypto's random functions; its Date wrapper only inside its route runtime) and, once it has served a request, Node 20's AsyncLocalStorage keeps promise
 * hooks on for every promise of its isolate. In a thread of its own those costs stay with the dashboard, the
 * manager's requests run beside the dashboard's on the second core instead of between them, and each heap is
 * collected apart. The thread's calls to the manager are sent over HTTP by this thread's client (./manager-port).
 */
import path from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { serveManagerPort } from './manager-port';
import type { FromWebThread, ToWebThread, WebThreadData, WebThreadStart } from './thread-messages';

/** The worker's script, bundled by scripts/build.mjs beside dist/server.mjs. */
export function webThreadScript(projectDir: string): string {
  return path.join(projectDir, 'dist', 'web-thread.mjs');
}

export interface WebThread {
  url: string;
  /** True from the thread's start until it closed its listener or ended. */
  readonly listening: boolean;
  /** The listener's drain (graceMs as ../http/listen's), then the thread's end. */
  close(graceMs?: number): Promise<void>;
}

export interface WebThreadOptions extends WebThreadData {
  log: Pick<Logger, 'error'>;
  /** The thread ended by itself after it started (a crash): the dashboard is gone. */
  onCrash(err: Error): void;
}

export function startWebThread({ log, onCrash, ...data }: WebThreadOptions): Promise<WebThread> {
  const { port1, port2 } = new MessageChannel();
  const managerCalls = serveManagerPort(port1, data.managerUrl);
  const workerData: WebThreadStart = { ...data, managerPort: port2 };
  const worker = new Worker(webThreadScript(data.projectDir), { workerData, transferList: [port2] });
  const send = (message: ToWebThread) => worker.postMessage(message);
  let state: 'starting' | 'listening' | 'closing' | 'ended' = 'starting';
  return new Promise((resolve, reject) => {
    let closed: (() => void) | undefined;
    const ended = new Promise<void>((done) => worker.once('exit', () => done()));
    void ended.then(() => managerCalls.close());
    worker.on('message', (message: FromWebThread) => {
      if (message.kind === 'failed') {
        reject(new Error(`the dashboard did not start: ${message.message}`));
        void worker.terminate();
      } else if (message.kind === 'listening') {
        state = 'listening';
        resolve({
          url: message.url,
          get listening() {
            return state === 'listening';
          },
          async close(graceMs = 0) {
            if (state === 'listening') {
              state = 'closing';
              await new Promise<void>((done) => {
                closed = done;
                send({ kind: 'close', graceMs });
              });
            }
            await worker.terminate();
            await ended;
          },
        });
      } else if (message.kind === 'closed') closed?.();
    });
    worker.on('error', (err) => {
      log.error({ err }, 'the dashboard thread failed');
      if (state === 'starting') reject(err);
    });
    worker.once('exit', (code) => {
      const was = state;
      state = 'ended';
      closed?.();
      if (was === 'starting') reject(new Error(`the dashboard thread ended (${code}) before it listened`));
      else if (was === 'listening') onCrash(new Error(`the dashboard thread ended (${code})`));
    });
  });
}
