/**
 * The app proxy's pass-through path (server/appproxy/passthrough) between real sockets: a node:http server with
 * passThrough() in front, a node:http upstream, and raw TCP clients, so every byte on the wire is the test's. One
 * behaviour per test: framing both ways, keep-alive and pairing, hand-off to node:http at a request boundary,
 * upstream failures, and bad input.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { passThrough, serializeRequestHead, type RequestHead } from '../../server/appproxy/passthrough';
import { ChunkedFramer, FramingError } from '../../server/appproxy/passthrough/body-framer';
import { headEnd, parseRequestHead } from '../../server/appproxy/passthrough/head';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  port: number;
}

const seen: Seen[] = [];
const upstreams: http.Server[] = [];
const upstreamPorts: number[] = [];
let deadPort: number;
let proxy: http.Server;
let proxyPort: number;
let asyncDecisions = 0;
/** Requests node:http answered (handed off). */
const handedOff: string[] = [];

const listen = (server: net.Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

function upstream(index: number): http.Server {
  return http.createServer((req, res) => {
    let body = '';
    req.setEncoding('latin1');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, port: upstreamPorts[index] });
      const path = (req.url ?? '').split('?')[0];
      if (path === '/chunked') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('one,');
        setImmediate(() => res.end('two'));
      } else if (path === '/empty') {
        res.writeHead(204);
        res.end();
      } else if (path === '/not-modified') {
        res.writeHead(304, { ETag: '"x"' });
        res.end();
      } else if (path === '/hints') {
        res.writeEarlyHints({ link: '</style.css>; rel=preload' });
        res.end('after hints');
      } else if (path === '/until-close') {
        // An HTTP/1.0-style answer: no length, no chunking; the body ends with the connection.
        res.socket!.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it');
      } else if (path === '/die-midway') {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('partial');
        setImmediate(() => res.socket!.destroy());
      } else if (path === '/too-much') {
        res.socket!.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA');
      } else if (path === '/close') {
        res.writeHead(200, { Connection: 'close', 'Content-Length': '3' });
        res.end('bye');
      } else {
        const text = `${req.method} ${req.url} ${body.length}`;
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text), 'X-Upstream': String(index) });
        res.end(req.method === 'HEAD' ? undefined : text);
      }
    });
  });
}

beforeAll(async () => {
  for (const index of [0, 1]) {
    const server = upstream(index);
    upstreams.push(server);
    upstreamPorts.push(await listen(server));
  }
  const dead = net.createServer();
  deadPort = await listen(dead);
  await new Promise((resolve) => dead.close(resolve));

  proxy = http.createServer((req, res) => {
    handedOff.push(`${req.method} ${req.url}`);
    const text = `node:http answered ${req.method} ${req.url}`;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text), 'X-Remote': String(req.socket.remoteAddress) });
    res.end(text);
  });
  proxy.on('upgrade', (req, socket) => {
    handedOff.push(`upgrade ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  const decide = (head: RequestHead, socket: net.Socket) => {
    if (head.target === '/throw') throw new Error('a decision that fails');
    const match = /^\/(one|two|dead|later)(\/.*)$/.exec(head.target);
    if (!match) return null;
    const port = match[1] === 'two' ? upstreamPorts[1] : match[1] === 'dead' ? deadPort : upstreamPorts[0];
    head.headers['x-forwarded-for'] = socket.remoteAddress ?? '';
    const target = { host: '127.0.0.1', port, head: serializeRequestHead(head.method, match[2], head.headers) };
    if (match[1] !== 'later') return target;
    asyncDecisions += 1;
    return new Promise<typeof target>((resolve) => setTimeout(() => resolve(target), 5));
  };
  passThrough(proxy, { decide, badGateway: () => 'HTTP/1.1 502 Bad Gateway\r\nContent-Length: 3\r\nConnection: close\r\n\r\n502' });
  proxy.keepAliveTimeout = 5_000;
  proxyPort = await listen(proxy);
});

afterAll(async () => {
  proxy.closeAllConnections();
  for (const server of upstreams) server.closeAllConnections();
  await Promise.all([proxy, ...upstreams].map((s) => new Promise((r) => s.close(r))));
});

afterEach(() => {
  seen.length = 0;
  handedOff.length = 0;
});

/** A raw client: writes bytes, collects what comes back until `until` matches it or the connection ends. */
class RawClient {
  readonly socket: net.Socket;
  received = '';
  ended = false;
  private waiters: Array<() => void> = [];

  constructor() {
    this.socket = net.connect(proxyPort, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (c: string) => {
      this.received += c;
      this.wake();
    });
    this.socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    this.socket.on('error', () => undefined);
  }

  send(bytes: string): this {
    this.socket.write(bytes, 'latin1');
    return this;
  }

  /** Waits until the received text matches (or the connection ends) and answers everything received. */
  async until(pattern: RegExp | ((text: string) => boolean)): Promise<string> {
    const met = () => (typeof pattern === 'function' ? pattern(this.received) : pattern.test(this.received));
    while (!met() && !this.ended) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.received;
  }

  async closed(): Promise<string> {
    return this.until(() => false);
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('pass-through path', () => {
  it('forwards an admitted request with its rewritten head and passes the answer back byte for byte', async () => {
    const client = new RawClient().send('GET /one/hello?x=1 HTTP/1.1\r\nHost: proxy\r\nX-Custom: kept\r\n\r\n');
    const text = await client.until(/GET \/hello\?x=1 0$/);
    client.close();
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain('X-Upstream: 0');
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/hello?x=1' });
    expect(seen[0].headers['x-custom']).toBe('kept');
    expect(seen[0].headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(handedOff).toEqual([]);
  });

  it('keeps the connection: several requests in turn on one client and one upstream connection', async () => {
    const client = new RawClient();
    for (let i = 0; i < 5; i++) {
      client.send(`GET /one/n${i} HTTP/1.1\r\nHost: proxy\r\n\r\n`);
      await client.until((t) => count(t, 'HTTP/1.1 200') === i + 1 && t.endsWith(`/n${i} 0`));
    }
    client.close();
    expect(seen.map((s) => s.url)).toEqual(['/n0', '/n1', '/n2', '/n3', '/n4']);
  });

  it('takes pipelined requests in order', async () => {
    const client = new RawClient().send('GET /one/a HTTP/1.1\r\nHost: p\r\n\r\nGET /one/b HTTP/1.1\r\nHost: p\r\n\r\nGET /two/c HTTP/1.1\r\nHost: p\r\n\r\n');
    const text = await client.until((t) => t.endsWith('GET /c 0'));
    client.close();
    expect(text.indexOf('/a 0')).toBeLessThan(text.indexOf('/b 0'));
    expect(seen.map((s) => [s.url, s.port])).toEqual([['/a', upstreamPorts[0]], ['/b', upstreamPorts[0]], ['/c', upstreamPorts[1]]]);
  });

  it('forwards a Content-Length body and a chunked body unchanged', async () => {
    const client = new RawClient().send('POST /one/len HTTP/1.1\r\nHost: p\r\nContent-Length: 5\r\n\r\nhello');
    await client.until(/POST \/len 5$/);
    client.send('POST /one/chunks HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n');
    await new Promise((r) => setTimeout(r, 20));
    client.send('4\r\ndefg\r\n0\r\nX-Trailer: t\r\n\r\n');
    const text = await client.until(/POST \/chunks 7$/);
    client.close();
    expect(seen.map((s) => s.body)).toEqual(['hello', 'abcdefg']);
    expect(text).not.toContain('node:http answered');
  });

  it('follows a chunked answer to its end and serves the next request after it', async () => {
    const client = new RawClient().send('GET /one/chunked HTTP/1.1\r\nHost: p\r\n\r\n');
    await client.until(/0\r\n\r\n$/);
    client.send('GET /one/after HTTP/1.1\r\nHost: p\r\n\r\n');
    const text = await client.until(/GET \/after 0$/);
    client.close();
    expect(text).toContain('Transfer-Encoding: chunked');
    expect(text).toContain('4\r\none,\r\n');
  });

  it('knows that HEAD, 204 and 304 answers have no body', async () => {
    const client = new RawClient().send('HEAD /one/x HTTP/1.1\r\nHost: p\r\n\r\n');
    await client.until(/\r\n\r\n$/);
    client.send('GET /one/empty HTTP/1.1\r\nHost: p\r\n\r\n');
    await client.until(/204 No Content[^]*\r\n\r\n$/);
    client.send('GET /one/not-modified HTTP/1.1\r\nHost: p\r\n\r\n');
    await client.until(/304 Not Modified[^]*\r\n\r\n$/);
    client.send('GET /one/last HTTP/1.1\r\nHost: p\r\n\r\n');
    const text = await client.until(/GET \/last 0$/);
    client.close();
    expect(seen.map((s) => s.url)).toEqual(['/x', '/empty', '/not-modified', '/last']);
    expect(text).toContain('Content-Length: 9'); // the length a GET would get, and no body after it
  });

  it('passes interim 103 answers on before the final one', async () => {
    const client = new RawClient().send('GET /one/hints HTTP/1.1\r\nHost: p\r\n\r\n');
    const text = await client.until(/after hints$/);
    client.close();
    expect(text).toMatch(/^HTTP\/1\.1 103 Early Hints\r\n[^]*HTTP\/1\.1 200 OK/);
  });

  it('ends the client after an answer that runs until the upstream closes', async () => {
    const client = new RawClient().send('GET /one/until-close HTTP/1.1\r\nHost: p\r\n\r\n');
    const text = await client.closed();
    expect(text).toMatch(/\r\n\r\nall of it$/);
  });

  it('closes after the answer when the client or the app asks for it', async () => {
    const asked = await new RawClient().send('GET /one/x HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n').closed();
    expect(asked).toMatch(/GET \/x 0$/);
    const told = await new RawClient().send('GET /one/close HTTP/1.1\r\nHost: p\r\n\r\n').closed();
    expect(told).toMatch(/\r\n\r\nbye$/);
  });

  it('waits for an asynchronous decision', async () => {
    const before = asyncDecisions;
    const client = new RawClient().send('GET /later/x HTTP/1.1\r\nHost: p\r\n\r\n');
    await client.until(/GET \/x 0$/);
    client.close();
    expect(asyncDecisions).toBe(before + 1);
  });

  it('lets node:http answer a request it does not take, and takes the next one on the same connection', async () => {
    const client = new RawClient().send('GET /one/first HTTP/1.1\r\nHost: p\r\n\r\n');
    await client.until(/GET \/first 0$/);
    client.send('POST /elsewhere HTTP/1.1\r\nHost: p\r\nContent-Length: 4\r\n\r\nbody');
    await client.until(/node:http answered POST \/elsewhere$/);
    client.send('GET /one/third HTTP/1.1\r\nHost: p\r\n\r\n');
    const text = await client.until(/GET \/third 0$/);
    client.close();
    expect(handedOff).toEqual(['POST /elsewhere']);
    expect(seen.map((s) => s.url)).toEqual(['/first', '/third']);
    expect(count(text, 'HTTP/1.1 200 OK')).toBe(3);
  });

  it('lets node:http answer when the decision fails, and goes on', async () => {
    const client = new RawClient().send('GET /throw HTTP/1.1\r\nHost: p\r\n\r\n');
    await client.until(/answered GET \/throw$/);
    client.send('GET /one/next HTTP/1.1\r\nHost: p\r\n\r\n');
    await client.until(/GET \/next 0$/);
    client.close();
    expect(handedOff).toEqual(['GET /throw']);
  });

  it('gives node:http the client\'s address on a link', async () => {
    const client = new RawClient().send('GET /address HTTP/1.1\r\nHost: p\r\n\r\n');
    const text = await client.until(/answered GET \/address$/);
    client.close();
    expect(text).toContain('X-Remote: 127.0.0.1');
  });

  it('hands WebSocket upgrades, HTTP/1.0 and expectations to node:http', async () => {
    const upgrade = await new RawClient().send('GET /one/ws HTTP/1.1\r\nHost: p\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n').closed();
    expect(upgrade).toMatch(/^HTTP\/1\.1 403/);
    const old = await new RawClient().send('GET /one/old HTTP/1.0\r\nHost: p\r\n\r\n').closed();
    expect(old).toMatch(/node:http answered GET \/one\/old$/);
    const expecting = new RawClient().send('POST /one/e HTTP/1.1\r\nHost: p\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi');
    await expecting.until(/node:http answered POST \/one\/e$/);
    expecting.close();
    expect(handedOff).toEqual(['upgrade /one/ws', 'GET /one/old', 'POST /one/e']);
    expect(seen).toEqual([]);
  });

  it('leaves ambiguous framing to node:http, which refuses it', async () => {
    const smuggle = await new RawClient().send('POST /one/s HTTP/1.1\r\nHost: p\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /one/smuggled HTTP/1.1\r\nHost: p\r\n\r\n').closed();
    expect(smuggle).toMatch(/^HTTP\/1\.1 400/);
    const twice = await new RawClient().send('POST /one/t HTTP/1.1\r\nHost: p\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab').closed();
    expect(twice).toMatch(/^HTTP\/1\.1 400/);
    const folded = await new RawClient().send('GET /one/f HTTP/1.1\r\nHost: p\r\nX-A: 1\r\n folded\r\n\r\n').closed();
    expect(folded).toMatch(/^HTTP\/1\.1 400/);
    expect(seen).toEqual([]);
  });

  it('hands an oversized head to node:http, which answers 431', async () => {
    const text = await new RawClient().send(`GET /one/big HTTP/1.1\r\nHost: p\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`).closed();
    expect(text).toMatch(/^HTTP\/1\.1 431/);
    expect(seen).toEqual([]);
  });

  it('drops the connection on a malformed chunked body rather than guess where the next request starts', async () => {
    const client = new RawClient().send('POST /one/bad HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n');
    const text = await client.closed();
    expect(text).not.toContain('200 OK');
  });

  it('answers 502 when the upstream cannot be reached, and cuts the client when it dies mid-answer', async () => {
    const refused = await new RawClient().send('GET /dead/x HTTP/1.1\r\nHost: p\r\n\r\n').closed();
    expect(refused).toBe('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 3\r\nConnection: close\r\n\r\n502');
    const cut = await new RawClient().send('GET /one/die-midway HTTP/1.1\r\nHost: p\r\n\r\n').closed();
    expect(cut).toMatch(/\r\n\r\npartial$/);
  });

  it('passes on no more than the answer when the upstream sends extra bytes, and closes', async () => {
    const text = await new RawClient().send('GET /one/too-much HTTP/1.1\r\nHost: p\r\n\r\n').closed();
    expect(text).toMatch(/\r\n\r\nok$/);
  });

  it('closes idle connections with the server and leaves busy ones to finish', async () => {
    const idle = new RawClient().send('GET /one/x HTTP/1.1\r\nHost: p\r\n\r\n');
    await idle.until(/GET \/x 0$/);
    proxy.closeIdleConnections();
    await idle.closed();
    expect(idle.ended).toBe(true);
  });
});

describe('head and body parsing', () => {
  it('finds the head and folds repeated headers as node:http does', () => {
    const buf = Buffer.from('GET /p HTTP/1.1\r\nCookie: a=1\r\nCookie: b=2\r\nAccept: x\r\nAccept: y\r\nHost: h1\r\nHost: h2\r\n\r\nbody');
    const end = headEnd(buf);
    expect(buf.subarray(end).toString()).toBe('body');
    const head = parseRequestHead(buf, end)!;
    expect(head.headers).toEqual({ cookie: 'a=1; b=2', accept: 'x, y', host: 'h1' });
    expect(headEnd(Buffer.from('GET / HTTP/1.1\r\nHost: h\r\n'))).toBe(-1);
  });

  it('refuses NUL, bare CR or LF and malformed lines', () => {
    for (const head of ['GET /p HTTP/1.1\r\nX: a\0b\r\n\r\n', 'GET /p HTTP/1.1\r\nX: a\nb\r\n\r\n', 'GET /p HTTP/1.1\r\nBad Name: v\r\n\r\n', 'GET /p q HTTP/1.1\r\n\r\n', 'get /p HTTP/1.1\r\n\r\n']) {
      const buf = Buffer.from(head, 'latin1');
      expect(parseRequestHead(buf, headEnd(buf)), JSON.stringify(head)).toBeNull();
    }
  });

  it('follows a chunked body split at every byte', () => {
    const body = Buffer.from('5\r\nhello\r\na;x=y\r\n0123456789\r\n0\r\nT: 1\r\n\r\nNEXT');
    const framer = new ChunkedFramer();
    let end = -1;
    for (let i = 0; i < body.length && !framer.done; i++) end = framer.take(body.subarray(i, i + 1), 0) + i;
    expect(framer.done).toBe(true);
    expect(body.subarray(end).toString()).toBe('NEXT');
  });

  it('refuses a chunk longer than its size and a size that is not hex', () => {
    expect(() => new ChunkedFramer().take(Buffer.from('2\r\nabc\r\n'), 0)).toThrow(FramingError);
    expect(() => new ChunkedFramer().take(Buffer.from('g\r\n'), 0)).toThrow(FramingError);
    expect(() => new ChunkedFramer().take(Buffer.from('fffffffffffffff\r\n'), 0)).toThrow(FramingError);
  });
});
