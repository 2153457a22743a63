/** What the main thread and the dashboard's worker thread (./thread.ts, ./thread-entry.ts) tell each other. */
import type { MessagePort } from 'node:worker_threads';

/** The worker's start: everything the dashboard needs, as plain data. */
export interface WebThreadData {
  managerUrl: string;
  projectDir: string;
  dataDir: string;
  host: string;
  port: number;
  logLevel: string;
  /** Render the first visitor's pages before saying it listens (./warm-up). */
  warmUp: boolean;
  /** Collect the thread's heap once it has been quiet this long after requests (../util/idle-collection); 0: never. */
  idleCollectionMs: number;
}

/** The worker's start as the main thread sends it: the plain data and the port its manager calls go over (./manager-port). */
export interface WebThreadStart extends WebThreadData {
  managerPort: MessagePort;
}

export type ToWebThread = { kind: 'close'; graceMs: number };

export type FromWebThread = { kind: 'listening'; url: string } | { kind: 'failed'; message: string } | { kind: 'closed' };
