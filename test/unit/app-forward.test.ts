/**
 * The app proxy's HTTP forwarding (server/appproxy/forward.ts) between two real node:http servers: what reaches the
 * upstream (method, path, body, X-Forwarded-*), what reaches the client (status, headers, a streamed body), a dead
 * upstream reported to the caller, and a client that leaves cancelling the upstream request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forward } from '../../server/appproxy/forward';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let upstream: http.Server;
let proxy: http.Server;
let upstreamPort: number;
let proxyPort: number;
let deadPort: number;
const agent = new http.Agent({ keepAlive: true });
const seen: Seen[] = [];
const failures: Error[] = [];
let upstreamClosed: () => void = () => undefined;

const listen = (server: http.Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/stream') {
        // No Content-Length: node:http answers chunked; the proxy must stream it on.
        res.writeHead(201, 'Made', { 'Content-Type': 'text/plain', 'X-App': 'yes' });
        res.write('one,');
        setImmediate(() => res.end('two'));
      } else if (req.url === '/hang') {
        res.writeHead(200);
        res.write('partial');
        res.on('close', () => upstreamClosed());
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ ok: true }));
      }
    });
  });
  upstreamPort = await listen(upstream);
  const dead = http.createServer();
  deadPort = await listen(dead);
  await new Promise((resolve) => dead.close(resolve));
  proxy = http.createServer((req, res) => {
    const port = req.url === '/dead' ? deadPort : upstreamPort;
    forward(req, res, { host: '127.0.0.1', port }, agent, (err) => {
      failures.push(err);
      res.writeHead(502);
      res.end('bad gateway');
    });
  });
  proxyPort = await listen(proxy);
});

afterAll(async () => {
  agent.destroy();
  proxy.closeAllConnections();
  upstream.closeAllConnections();
  await Promise.all([new Promise((r) => proxy.close(r)), new Promise((r) => upstream.close(r))]);
});

function call(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; message: string; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: proxyPort, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, message: res.statusMessage ?? '', headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('forward()', () => {
  it('passes method, path with query and body upstream, and appends X-Forwarded-* to what the client sent', async () => {
    const answer = await call('POST', '/api/run?x=1&y=%20', { 'Content-Type': 'application/json', 'X-Forwarded-For': '10.0.0.9' }, '{"code":"1+1"}');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ ok: true });
    const got = seen.at(-1)!;
    expect(got).toMatchObject({ method: 'POST', url: '/api/run?x=1&y=%20', body: '{"code":"1+1"}' });
    expect(got.headers['x-forwarded-for']).toBe('10.0.0.9,127.0.0.1');
    expect(got.headers['x-forwarded-port']).toBe(String(proxyPort));
    expect(got.headers['x-forwarded-proto']).toBe('http');
    expect(got.headers['x-forwarded-host']).toBe(`127.0.0.1:${proxyPort}`);
  });

  it('gives a bodiless DELETE a zero Content-Length', async () => {
    await call('DELETE', '/thing/1');
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/thing/1', body: '' });
    expect(seen.at(-1)!.headers['content-length']).toBe('0');
  });

  it("streams a chunked answer with the upstream's status, reason and headers", async () => {
    const answer = await call('GET', '/stream');
    expect(answer).toMatchObject({ status: 201, message: 'Made', body: 'one,two' });
    expect(answer.headers['x-app']).toBe('yes');
    expect(answer.headers['content-type']).toBe('text/plain');
    expect(answer.headers.connection).toBe('keep-alive');
  });

  it('reports a dead upstream to the caller, which answers for it', async () => {
    const answer = await call('GET', '/dead');
    expect(answer).toMatchObject({ status: 502, body: 'bad gateway' });
    expect((failures.at(-1) as Error & { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('cancels the upstream request when the client goes away', async () => {
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const req = http.request({ host: '127.0.0.1', port: proxyPort, path: '/hang', agent: false }, (res) => res.once('data', () => req.destroy()));
    req.on('error', () => undefined);
    req.end();
    await closed;
  });
});
