/**
 * node:http's own refusals answer as problem+json (server/http/client-error.ts), over a real server and raw
 * sockets: the bytes are what a client would send, not what a well-behaved client library would.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answerClientErrors } from '../../server/http/client-error';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((done) => {
  if (!server) return done();
  server.closeAllConnections();
  server.close(() => done());
  server = undefined;
}));

async function serve(options: http.ServerOptions, handler: http.RequestListener, headers?: Record<string, string>): Promise<number> {
  server = http.createServer(options, handler);
  answerClientErrors(server, headers);
  await new Promise<void>((ready) => server!.listen(0, '127.0.0.1', ready));
  return (server.address() as AddressInfo).port;
}

/**
 * Everything the server writes back, until it closes the connection. With `keepOpen` the client does not end its
 * side; `then` is written once the first bytes of an answer have arrived.
 */
function raw(port: number, text: string, keepOpen = false, then?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => (keepOpen ? socket.write(text) : socket.end(text)));
    let got = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      if (!got && then) socket.write(then);
      got += chunk;
    });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

function problemOf(answer: string): { status: number; type: string; headers: string; body: Record<string, unknown> } {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), type: /content-type: ([^\r]*)/i.exec(head)?.[1] ?? '', headers: `${head}\r\n`, body: JSON.parse(body) };
}

const ok: http.RequestListener = (_req, res) => res.end('ok');

describe('answerClientErrors', () => {
  it('answers a request head over 16 KiB with 431 problem+json', async () => {
    const port = await serve({}, ok);
    const problem = problemOf(await raw(port, `GET /?pad=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(problem.status).toBe(431);
    expect(problem.type).toBe('application/problem+json');
    expect(problem.body).toMatchObject({ type: 'https://errors.berth.dev/request-header-fields-too-large', title: 'Request header fields too large.' });
    expect(problem.headers).toMatch(/\r\nConnection: close\r\n/);
  });

  it('answers bytes that are not HTTP with 400 problem+json', async () => {
    const port = await serve({}, ok);
    const problem = problemOf(await raw(port, 'HELLO THERE\r\n\r\n'));
    expect(problem.status).toBe(400);
    expect(problem.body.type).toBe('https://errors.berth.dev/generic-bad-request');
  });

  it('answers a head that never finishes arriving with 408 problem+json', async () => {
    const port = await serve({ headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 50 }, ok);
    const problem = problemOf(await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n', true));
    expect(problem.status).toBe(408);
    expect(problem.body.type).toBe('https://errors.berth.dev/request-timeout');
  });

  it("adds the caller's headers to each answer", async () => {
    const port = await serve({}, ok, { Server: 'Berth' });
    expect(problemOf(await raw(port, 'HELLO\r\n\r\n')).headers).toMatch(/\r\nServer: Berth\r\n/);
  });

  it('writes nothing into an answer already begun: the connection is cut instead', async () => {
    // The first request's answer has sent its head when the garbage after it, on the same connection, fails to parse.
    const port = await serve({}, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
      setTimeout(() => res.end(' and the rest'), 200);
    });
    const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', true, 'HELLO THERE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answer).toContain('partial');
    expect(answer).not.toContain('problem+json');
    expect(answer).not.toContain('the rest');
  });

  it('keeps the server serving after a refusal', async () => {
    const port = await serve({}, ok);
    await raw(port, 'HELLO\r\n\r\n');
    expect(await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK[^]*ok$/);
  });
});
