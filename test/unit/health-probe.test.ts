/**
 * A model server's health probe (server/services/health.ts) with a tunnel, as for a container on a remote Docker
 * engine: the probe must reach the server through the tunnel, never by connecting to the address itself. The
 * address here is one nothing listens on, so a direct connection fails.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConnector } from '../../server/agents/agent';
import { probe } from '../../server/services/health';

let server: http.Server;
let port: number;
let sick = false;
const UNREACHABLE = { host: '127.0.0.1', port: 1 };
const check = { path: '/health', expectedStatusCode: 200, maxWaitTime: 2, maxRetries: 1, interval: 1, initialDelay: 5 };
const opened: number[] = [];
const sockets: net.Socket[] = [];
/** Opens a real connection to the test server, whatever port the probe asks for (and remembers that port). */
const tunnel: AppConnector = (asked) => {
  opened.push(asked);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    sockets.push(socket);
    socket.once('error', reject);
  });
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.statusCode = req.url === '/health' && !sick ? 200 : 500;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('a health probe through a tunnel', () => {
  it('fails without the tunnel: the address itself is out of reach', async () => {
    expect((await probe(UNREACHABLE.host, UNREACHABLE.port, check)).ok).toBe(false);
    expect((await probe(UNREACHABLE.host, UNREACHABLE.port, null)).ok).toBe(false);
  });

  it('sends the HTTP check through the tunnel, for the route\'s port', async () => {
    opened.length = 0;
    expect(await probe(UNREACHABLE.host, UNREACHABLE.port, check, tunnel)).toEqual({ ok: true, detail: 'GET /health answered 200' });
    expect(opened).toEqual([UNREACHABLE.port]);
    // Each probe's connection is closed once answered (on a remote engine, each is a process in the container).
    await new Promise((resolve) => (sockets.at(-1)!.closed ? resolve(null) : sockets.at(-1)!.once('close', resolve)));
  });

  it('reports a failing check seen through the tunnel', async () => {
    sick = true;
    try {
      expect(await probe(UNREACHABLE.host, UNREACHABLE.port, check, tunnel)).toEqual({ ok: false, detail: 'GET /health answered 500, expected 200' });
    } finally {
      sick = false;
    }
  });

  it('without a check, counts a connection through the tunnel as listening', async () => {
    expect(await probe(UNREACHABLE.host, UNREACHABLE.port, null, tunnel)).toEqual({ ok: true, detail: 'listening' });
  });

  it('reports a tunnel that cannot connect as not listening, with or without a check', async () => {
    const refused: AppConnector = () => Promise.reject(new Error('the exec bridge ended before it connected'));
    expect(await probe(UNREACHABLE.host, UNREACHABLE.port, null, refused)).toEqual({ ok: false, detail: 'not listening: the exec bridge ended before it connected' });
    const result = await probe(UNREACHABLE.host, UNREACHABLE.port, check, refused);
    expect(result).toEqual({ ok: false, detail: 'GET /health failed: the exec bridge ended before it connected' });
  });
});
