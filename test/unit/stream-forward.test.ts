/**
 * The CLI's stream client (server/client/websocket.ts) and its local port forward (server/client/forward.ts)
 * against a real WebSocket server standing in for the manager's tcpproxy: an app that speaks first, like sshd
 * with its banner, has its first frame written right behind the 101 answer, so both reach the client in one read.
 * Nothing it sends may be lost before the caller is listening.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { BerthClient } from '../../server/client/client';
import { startForward } from '../../server/client/forward';
import { openStream } from '../../server/client/websocket';

const BANNER = 'SSH-2.0-Speaks-First\r\n';
let server: http.Server;
let client: BerthClient;
const paths: string[] = [];

beforeAll(async () => {
  const wss = new WebSocketServer({ noServer: true });
  server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on('upgrade', (req, socket, head) => {
    paths.push(req.url ?? '');
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      // In the same tick as the 101: the frame follows it on the wire at once. Then an echo of what comes in.
      ws.send(Buffer.from(BANNER), { binary: true });
      ws.on('message', (data) => ws.send(data as Buffer, { binary: true }));
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  client = new BerthClient({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, accessKey: 'AKTEST', secretKey: 'secret' });
});

afterAll(() => new Promise<void>((done) => {
  server.closeAllConnections();
  server.close(() => done());
}));

/** Reads from `socket` until `want` bytes have come. */
function read(socket: net.Socket, want: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const timer = setTimeout(() => reject(new Error(`only ${JSON.stringify(got)} arrived`)), 5000);
    const onData = (chunk: Buffer) => {
      got += chunk;
      if (got.length < want) return;
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(got);
    };
    socket.on('data', onData);
  });
}

describe('openStream', () => {
  it('hands the stream over paused: a frame that came with the 101 waits for the caller', async () => {
    for (let i = 0; i < 5; i++) {
      const { ws } = await openStream(client, '/stream/session/s1/tcpproxy', { app: 'sshd' });
      // Whatever the caller awaits before listening, the first frame is still there afterwards.
      await new Promise((r) => setImmediate(r));
      const first = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
      ws.resume();
      expect(await first).toBe(BANNER);
      ws.terminate();
    }
    expect(paths.at(-1)).toBe('/stream/session/s1/tcpproxy?app=sshd');
  });
});

describe('startForward', () => {
  it('delivers an app\'s first bytes to every connection, then relays both ways', async () => {
    const forward = await startForward(client, { session: 's1', app: 'sshd', protocol: 'tcp', host: '127.0.0.1', port: 0 });
    try {
      for (let i = 0; i < 5; i++) {
        const socket = net.connect(forward.port, '127.0.0.1');
        expect(await read(socket, BANNER.length)).toBe(BANNER);
        const echoed = read(socket, 5);
        socket.write('hello');
        expect(await echoed).toBe('hello');
        socket.destroy();
      }
    } finally {
      await forward.close();
    }
  });
});
