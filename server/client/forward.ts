/**
 * A local port forward to a session's app (`berth app`, `berth ssh`): a TCP listener whose every connection is
 * relayed, raw, through its own signed WebSocket to /stream/session/{name}/tcpproxy (TCP apps) or /httpproxy
 * (HTTP apps). Closing the forward closes the listener and every connection; a connection whose relay ends (the
 * app or the session went away) is closed too.
 */
import net from 'node:net';
import type WebSocket from 'ws';
import type { BerthClient } from './client';
import { openStream } from './websocket';

export interface ForwardOptions {
  session: string;
  app: string;
  protocol: 'tcp' | 'http';
  host: string;
  port: number;
  /** Called when a connection could not be relayed (the error that refused it). */
  onError?: (err: unknown) => void;
}

export interface Forward {
  host: string;
  port: number;
  /** How many connections are being relayed now. */
  readonly connections: number;
  close(): Promise<void>;
}

/** Where an app is relayed from, and its base path (HTTP apps are served under /app/<route>/). */
export async function probeApp(client: BerthClient, session: string, app: string, protocol: 'tcp' | 'http'): Promise<{ basePath: string }> {
  const { ws, headers } = await openStream(client, relayPath(session, protocol), { app });
  ws.terminate();
  return { basePath: String(headers['x-berth-app-path'] ?? '/') };
}

const relayPath = (session: string, protocol: 'tcp' | 'http') => `/stream/session/${encodeURIComponent(session)}/${protocol}proxy`;

export async function startForward(client: BerthClient, options: ForwardOptions): Promise<Forward> {
  const live = new Set<{ socket: net.Socket; ws?: WebSocket }>();
  const server = net.createServer((socket) => {
    const entry: { socket: net.Socket; ws?: WebSocket } = { socket };
    live.add(entry);
    socket.setNoDelay(true);
    socket.pause();
    const done = () => {
      live.delete(entry);
      socket.destroy();
      entry.ws?.terminate();
    };
    socket.on('close', done);
    socket.on('error', done);
    openStream(client, relayPath(options.session, options.protocol), { app: options.app })
      .then(({ ws }) => {
        if (!live.has(entry)) return ws.terminate();
        entry.ws = ws;
        pipe(socket, ws, done);
      })
      .catch((err: unknown) => {
        options.onError?.(err);
        done();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as net.AddressInfo;
  return {
    host: address.address,
    port: address.port,
    get connections() {
      return live.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const entry of [...live]) {
          entry.socket.destroy();
          entry.ws?.terminate();
        }
        live.clear();
      }),
  };
}

/** Bytes both ways, with backpressure both ways. */
function pipe(socket: net.Socket, ws: WebSocket, done: () => void): void {
  const raw = (ws as unknown as { _socket?: net.Socket })._socket;
  ws.on('message', (data) => {
    if (!socket.write(data as Buffer)) raw?.pause();
  });
  socket.on('drain', () => raw?.resume());
  socket.on('data', (chunk) => {
    ws.send(chunk, { binary: true });
    if (ws.bufferedAmount > 4 * 1024 * 1024) {
      socket.pause();
      const wait = setInterval(() => {
        if (ws.bufferedAmount > 1024 * 1024 && ws.readyState === ws.OPEN) return;
        clearInterval(wait);
        socket.resume();
      }, 5);
    }
  });
  socket.on('end', () => ws.close(1000));
  ws.on('close', done);
  ws.on('error', done);
  socket.resume();
  // openStream hands the WebSocket over paused, so the app's first bytes (sshd's banner) wait for the listener above.
  ws.resume();
}
