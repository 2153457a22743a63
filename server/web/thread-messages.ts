/** What the main thread and the dashboard's worker thread (./thread.ts, ./thread-entry.ts) tell each other. */

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

export type ToWebThread = { kind: 'close'; graceMs: number };

export type FromWebThread = { kind: 'listening'; url: string } | { kind: 'failed'; message: string } | { kind: 'closed' };
