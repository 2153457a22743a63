/**
 * The dashboard's warm-up at start (server/web/warm-up.ts): the first visitor's requests, made by Berth itself
 * against its own listener. It must reach a listener bound to a wildcard address, leave no connection open, and
 * never fail the start, whatever the dashboard answers.
 */
import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WARM_UP_PATHS, warmUpDashboard } from '../../server/web/warm-up';

let server: http.Server | undefined;

async function listen(host: string, handler: http.RequestListener): Promise<http.Server> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, host, resolve));
  return server;
}

const openConnections = (s: http.Server) => new Promise<number>((resolve, reject) => s.getConnections((err, n) => (err ? reject(err) : resolve(n))));

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(null));
  server = undefined;
});

describe('the dashboard warm-up', () => {
  it("asks for the login page, then next-auth's CSRF token and session, in that order", async () => {
    const asked: string[] = [];
    const s = await listen('127.0.0.1', (req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.end('ok');
    });
    const log = { warn: vi.fn() };
    await warmUpDashboard(s, log);
    expect(asked).toEqual(['GET /login', 'GET /api/auth/csrf', 'GET /api/auth/session']);
    expect(WARM_UP_PATHS[0]).toBe('/login');
    expect(log.warn).not.toHaveBeenCalled();
  });

  it('reaches a listener bound to every address, by loopback', async () => {
    const asked: string[] = [];
    const s = await listen('0.0.0.0', (req, res) => {
      asked.push(req.url!);
      res.end();
    });
    await warmUpDashboard(s, { warn: vi.fn() });
    expect(asked).toEqual(WARM_UP_PATHS);
  });

  it('leaves no connection open once done', async () => {
    const s = await listen('127.0.0.1', (_req, res) => res.end('ok'));
    await warmUpDashboard(s, { warn: vi.fn() });
    await vi.waitFor(async () => expect(await openConnections(s)).toBe(0));
  });

  it('logs a 5xx, a cut connection and a silent listener, asks for every path, and resolves', async () => {
    const s = await listen('127.0.0.1', (req, res) => {
      if (req.url === '/login') res.writeHead(500).end();
      else if (req.url === '/api/auth/csrf') (req.socket as net.Socket).destroy();
      // The session request is never answered.
    });
    const log = { warn: vi.fn() };
    await warmUpDashboard(s, log, 200);
    expect(log.warn.mock.calls.map(([fields]) => (fields as { path: string }).path)).toEqual(WARM_UP_PATHS);
    expect(log.warn.mock.calls[0][0]).toMatchObject({ status: 500 });
    expect(String((log.warn.mock.calls[2][0] as { err: Error }).err)).toContain('no answer in 200 ms');
  });
});
