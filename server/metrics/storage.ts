/** berth_storage_bytes_total: bytes accepted by uploads and sent by downloads, counted where they move. */
import type { Readable } from 'node:stream';
import type { App } from '../app';
import { metricsOf } from './registry';

export function countStorageBytes(app: App, direction: 'upload' | 'download', bytes: number): void {
  if (bytes > 0) metricsOf(app).storageBytes.inc({ direction }, bytes);
}

/** Counts what a stream that is already piped somewhere emits (a listener beside the pipe; it changes no flow). */
export function countStreamBytes(app: App, direction: 'upload' | 'download', stream: Readable): void {
  const counter = metricsOf(app).storageBytes.labels(direction);
  stream.on('data', (chunk: Buffer | string) => counter.inc(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length));
}
