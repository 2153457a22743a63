/**
 * Server-Sent Events (CONTRACT §10): `event:` + one-line JSON `data:`, a `: ping` comment every 15 s. A stream the
 * dashboard relays for a browser carries no key field (./relayed).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerJson, isRelayed } from './relayed';

const PING_MS = 15_000;

export interface SseStream {
  send(event: string, data: unknown): void;
  /** Sends `server_close` and ends the stream. */
  close(): void;
  /** Runs when the client goes away or the stream is closed. */
  onEnd(listener: () => void): void;
  readonly closed: boolean;
}

export function openSse(req: IncomingMessage, res: ServerResponse): SseStream {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const listeners: (() => void)[] = [];
  const relayed = isRelayed(req);
  let closed = false;
  const ping = setInterval(() => res.write(': ping\n\n'), PING_MS);
  const end = () => {
    if (closed) return;
    closed = true;
    clearInterval(ping);
    for (const listener of listeners) listener();
  };
  req.on('close', end);
  res.on('close', end);
  return {
    send(event, data) {
      if (!closed) res.write(`event: ${event}\ndata: ${answerJson(data, relayed)}\n\n`);
    },
    close() {
      if (closed) return;
      res.write('event: server_close\ndata: {}\n\n');
      res.end();
      end();
    },
    onEnd(listener) {
      listeners.push(listener);
    },
    get closed() {
      return closed;
    },
  };
}
