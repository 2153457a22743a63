/**
 * The dashboard thread's calls over a MessagePort, sent by the other side's node:http client
 * (server/web/manager-port.ts): the manager receives what the signing client would have sent itself, and the
 * answer comes back whole or streamed, paused while unread, cancelled when abandoned. Both ends run in this thread
 * here (a MessageChannel works within one thread as between two); a real node:http server stands for the manager.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BerthClient, type WireAnswer } from '../../server/client/client';
import { portTransport, serveManagerPort, WHOLE_ANSWER_BYTES } from '../../server/web/manager-port';

const KEYS = { accessKey: 'AKPORTTEST0000000001', secretKey: 'portTestSecret00000000000000000000000001' };
const MiB = 1024 * 1024;

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
const seen: Seen[] = [];
/** How each answer went on the manager's side: whether it was written to its end. */
const answers: { finished: boolean; closed: Promise<void>; written: () => number }[] = [];

function answerStream(res: http.ServerResponse, total: number): void {
  const chunk = Buffer.alloc(256 * 1024, 7);
  let written = 0;
  const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
  const state = { finished: false, closed, written: () => written };
  answers.push(state);
  res.once('finish', () => (state.finished = true));
  const more = () => {
    while (written < total) {
      const part = chunk.subarray(0, Math.min(chunk.length, total - written));
      written += part.length;
      if (!res.write(part)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
}

const manager = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
    const url = new URL(req.url!, 'http://manager');
    if (url.pathname === '/small') {
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-RateLimit-Remaining': '7', 'Set-Cookie': ['a=1', 'b=2'] });
      return res.end(JSON.stringify({ ok: true, query: url.search }));
    }
    if (url.pathname === '/large') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(Number(url.searchParams.get('bytes'))) });
      return answerStream(res, Number(url.searchParams.get('bytes')));
    }
    if (url.pathname === '/unknown-length') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }); // chunked: no Content-Length
      return answerStream(res, 2 * MiB);
    }
    if (url.pathname === '/cut') {
      res.writeHead(200, { 'Content-Length': String(4 * MiB) });
      res.write(Buffer.alloc(1024));
      return void setTimeout(() => res.socket?.destroy(), 20);
    }
    res.writeHead(204).end();
  });
});

let managerUrl: string;
let client: BerthClient;
let direct: BerthClient;
let served: { close(): void };

beforeAll(async () => {
  await new Promise<void>((resolve) => manager.listen(0, '127.0.0.1', resolve));
  managerUrl = `http://127.0.0.1:${(manager.address() as AddressInfo).port}`;
  const { port1, port2 } = new MessageChannel();
  served = serveManagerPort(port1, managerUrl);
  client = new BerthClient({ endpoint: managerUrl, ...KEYS, transport: portTransport(port2) });
  direct = new BerthClient({ endpoint: managerUrl, ...KEYS });
});

afterEach(() => {
  seen.length = 0;
  answers.length = 0;
});

afterAll(async () => {
  served.close();
  direct.close();
  await new Promise((resolve) => manager.close(resolve));
});

async function read(answer: WireAnswer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('calls over the manager port', () => {
  it('reach the manager as the signing client sends them itself', async () => {
    const date = new Date('2026-12-02T10:00:00Z');
    const options = { query: { q: 'x y' }, body: { name: 'über' }, headers: { 'X-Berth-Relayed': '1' }, date };
    await client.request('POST', '/small', options);
    await direct.request('POST', '/small', options);
    const [viaPort, itself] = seen;
    expect(viaPort.method).toBe('POST');
    expect(viaPort.url).toBe(itself.url);
    expect(viaPort.body.toString()).toBe(JSON.stringify({ name: 'über' }));
    const { connection: _a, ...portHeaders } = viaPort.headers;
    const { connection: _b, ...ownHeaders } = itself.headers;
    expect(portHeaders).toEqual(ownHeaders);
    expect(portHeaders.authorization).toMatch(/credential=AKPORTTEST0000000001:[0-9a-f]{64}$/);
  });

  it('carry a body that sits in a shared pool slab intact', async () => {
    const slab = Buffer.from('x'.repeat(100) + 'the body' + 'y'.repeat(100));
    await client.request('PUT', '/none', { rawBody: slab.subarray(100, 108), contentType: 'text/plain' });
    expect(seen[0].body.toString()).toBe('the body');
    expect(seen[0].headers['content-length']).toBe('8');
  });

  it("answer a small reply whole, with the manager's status and headers", async () => {
    const answer = await client.open('GET', '/small', { query: { n: 1 } });
    expect(answer.statusCode).toBe(201);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['x-ratelimit-remaining']).toBe('7');
    expect(answer.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(JSON.parse((await read(answer)).toString())).toEqual({ ok: true, query: '?n=1' });
  });

  it('answer a bodiless reply', async () => {
    const answer = await client.request('DELETE', '/none');
    expect(answer.status).toBe(204);
    expect(answer.body.length).toBe(0);
  });

  it('stream a reply larger than one message, every byte in order', async () => {
    const bytes = 3 * MiB + 17;
    const answer = await client.open('GET', '/large', { query: { bytes } });
    expect(Number(answer.headers['content-length'])).toBeGreaterThan(WHOLE_ANSWER_BYTES);
    const body = await read(answer);
    expect(body.length).toBe(bytes);
    expect(body.every((b) => b === 7)).toBe(true);
  });

  it('stream a reply of unknown length', async () => {
    const body = await read(await client.open('GET', '/unknown-length'));
    expect(body.length).toBe(2 * MiB);
  });

  it('pause the manager while a streamed reply is not read, and resume when it is', async () => {
    const bytes = 256 * MiB;
    const answer = await client.open('GET', '/large', { query: { bytes } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stalledAt = answers[0].written();
    expect(stalledAt).toBeLessThan(bytes / 4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answers[0].written()).toBe(stalledAt);
    let received = 0;
    for await (const chunk of answer) received += (chunk as Buffer).length;
    expect(received).toBe(bytes);
    expect(answers[0].finished).toBe(true);
  });

  it("end the manager's answer when the reader abandons it", async () => {
    const answer = await client.open('GET', '/large', { query: { bytes: 256 * MiB } });
    await new Promise<void>((resolve) => answer.once('data', () => resolve()));
    answer.destroy();
    await answers[0].closed;
    expect(answers[0].finished).toBe(false);
  });

  it('fail the read of a reply the manager cuts short', async () => {
    const answer = await client.open('GET', '/cut');
    await expect(read(answer)).rejects.toThrow();
  });

  it('fail a call to a manager that is not listening', async () => {
    const { port1, port2 } = new MessageChannel();
    const nowhere = serveManagerPort(port1, 'http://127.0.0.1:9');
    try {
      const lost = new BerthClient({ endpoint: 'http://127.0.0.1:9', ...KEYS, transport: portTransport(port2) });
      await expect(lost.request('GET', '/v2')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      nowhere.close();
      port2.close();
    }
  });
});
