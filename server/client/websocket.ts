/** Signed WebSocket connections to the manager's stream endpoints (§Streams), for the CLI and tools. */
import type { IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';
import { ApiError, type BerthClient, type RequestOptions } from './client';

export interface OpenedStream {
  /**
   * Paused: nothing is read from it until the caller, its listeners attached, calls `ws.resume()`. A server that
   * speaks first (sshd's banner through a tcpproxy) can have its first frame arrive with the 101 answer, and ws
   * emits that frame before a promise's continuation runs: unpaused, it would be lost.
   */
  ws: WebSocket;
  /** The 101 answer's headers (an app relay names the app's base path in X-Berth-App-Path). */
  headers: IncomingHttpHeaders;
}

/** Opens the stream, paused (see OpenedStream.ws); a refused upgrade rejects with the answer's problem as an ApiError. */
export function openStream(client: BerthClient, path: string, query?: RequestOptions['query']): Promise<OpenedStream> {
  const { url, headers } = client.upgradeRequest(path, query);
  const ws = new WebSocket(url, { headers, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });
  return new Promise((resolve, reject) => {
    ws.once('upgrade', (res) =>
      ws.once('open', () => {
        ws.pause();
        resolve({ ws, headers: res.headers });
      }),
    );
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let problem: Record<string, unknown>;
        try {
          problem = JSON.parse(text);
        } catch {
          problem = { detail: text };
        }
        reject(new ApiError(res.statusCode ?? 0, problem));
      });
      res.on('error', reject);
    });
    ws.once('error', reject);
  });
}
