/**
 * One client connection on the pass-through path (./index.ts says why it exists). Requests are taken one at a
 * time: the head is parsed and admitted by the caller's `decide`, rewritten and sent upstream with the body bytes
 * as they come; the answer goes back byte for byte while its framing is followed, so the next request can start
 * when it ends. The upstream connection stays paired with the client between requests to the same upstream.
 *
 * A request `decide` leaves (another path, a refusal) goes to node:http over a link for that one request; what the
 * parsers do not take (an upgrade, HTTP/1.0, odd framing) hands the connection itself to node:http, at a request
 * boundary, with the bytes read so far.
 */
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { type BodyFramer, FramingError, requestFramer, responseFramer, UntilCloseFramer } from './body-framer';
import { connectionHas, headEnd, parseRequestHead, parseResponseHead, type RequestHead } from './head';
import type { UpstreamPool } from './upstream-pool';

/** node:http's default limit for a head (--max-http-header-size); longer ones are node:http's to refuse. */
const MAX_HEAD_BYTES = 16 * 1024;
/** Bytes of a pipelined next request kept while an answer is in flight before reading pauses. */
const MAX_BUFFERED = 64 * 1024;

export interface PassTarget {
  host: string;
  port: number;
  /** The request head to send upstream (serializeRequestHead). */
  head: string;
}

export interface PassOptions {
  pool: UpstreamPool;
  /** Where the request goes, or null: node:http answers this request (over an in-memory link, ../../util/memory-link). */
  decide(head: RequestHead, socket: net.Socket): PassTarget | null | Promise<PassTarget | null>;
  /** A link into node:http for one request. */
  nodeLink(client: net.Socket): Duplex;
  /** Gives the connection, with bytes already read, to node:http for good (what the path cannot frame). */
  handOff(socket: net.Socket, buffered: Buffer | null): void;
  /** The 502 answer's head and body for an upstream that failed before answering. */
  badGateway(err: Error): string;
  keepAliveMs: number;
}

type State = 'head' | 'deciding' | 'body' | 'answering' | 'closed';

interface Answer {
  method: string;
  /** Bytes of the response head read so far (until it is complete). */
  head: Buffer | null;
  body: BodyFramer | null;
  /** Bytes sent to the client: after the first, a failure can only cut the connection. */
  started: boolean;
  close: boolean;
}

export class PassConnection {
  private state: State = 'head';
  private buffered: Buffer | null = null;
  private scanned = 0;
  private requestBody: BodyFramer | null = null;
  private answer: Answer | null = null;
  private upstream: Duplex | null = null;
  /** Where `upstream` goes; null for a link into node:http, which is never paired past its request nor pooled. */
  private upstreamTarget: { host: string; port: number } | null = null;
  private clientEnded = false;

  constructor(
    private readonly client: net.Socket,
    private readonly options: PassOptions,
  ) {
    client.setNoDelay(true);
    client.setTimeout(options.keepAliveMs);
    client.on('data', this.onClientData);
    client.on('end', this.onClientEnd);
    client.on('error', this.onClientError);
    client.on('close', this.onClientClose);
    client.on('timeout', this.onClientTimeout);
  }

  /** Ends the connection if no request is in flight (a server closing down). */
  closeIfIdle(): void {
    if (this.state === 'head' && !this.buffered) this.client.destroy();
  }

  destroy(): void {
    this.client.destroy();
  }

  private readonly onClientData = (chunk: Buffer): void => {
    if (this.state === 'body') return this.sendBody(chunk);
    if (this.state === 'closed') return;
    this.buffered = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    if (this.state === 'head') this.nextRequest();
    else if (this.buffered.length > MAX_BUFFERED) this.client.pause();
  };

  private readonly onClientEnd = (): void => {
    this.clientEnded = true;
    if (this.state === 'head') this.client.end();
  };

  private readonly onClientError = (): void => {
    this.client.destroy();
  };

  private readonly onClientClose = (): void => {
    const idle = this.state === 'head' || this.state === 'deciding';
    this.state = 'closed';
    if (idle) this.releaseUpstream();
    else this.dropUpstream();
  };

  private readonly onClientTimeout = (): void => {
    // Only an idle keep-alive connection times out; a slow answer is the app's business (no proxy timeout).
    if (this.state === 'head') this.client.destroy();
  };

  private nextRequest(): void {
    const buf = this.buffered;
    if (!buf || this.state !== 'head') return;
    const end = headEnd(buf, this.scanned);
    if (end < 0) {
      if (buf.length > MAX_HEAD_BYTES) this.handOff();
      else this.scanned = buf.length;
      return;
    }
    const head = parseRequestHead(buf, end);
    const framing = head && admissible(head) ? requestFramer(head.headers) : null;
    if (!head || !framing) return this.handOff();
    let decided: ReturnType<PassOptions['decide']>;
    try {
      decided = this.options.decide(head, this.client);
    } catch {
      decided = null; // whatever went wrong, node:http's path answers for it
    }
    if (!(decided instanceof Promise)) return this.start(head, end, framing, decided);
    this.state = 'deciding';
    this.client.pause();
    decided.then(
      (target) => {
        if (this.state !== 'deciding') return;
        this.state = 'head';
        this.client.resume();
        this.start(head, end, framing, target);
      },
      () => {
        if (this.state !== 'deciding') return;
        this.state = 'head';
        this.client.resume();
        this.start(head, end, framing, null);
      },
    );
  }

  private start(head: RequestHead, end: number, framing: BodyFramer, target: PassTarget | null): void {
    const buf = this.buffered as Buffer;
    this.buffered = null;
    this.scanned = 0;
    const bodyEnd = bodyBytes(framing, buf, end);
    if (bodyEnd < 0) return void this.client.destroy();
    this.requestBody = framing;
    this.answer = { method: head.method, head: null, body: null, started: false, close: connectionHas(head.headers, 'close') };
    const upstream = this.attach(target);
    // Set before writing: over an in-memory link, node:http may answer within the write.
    this.state = framing.done ? 'answering' : 'body';
    if (bodyEnd < buf.length) this.buffered = buf.subarray(bodyEnd);
    // node:http gets the request as the client sent it; an upstream, the head `decide` rewrote.
    const first = target ? Buffer.from(target.head, 'latin1') : buf.subarray(0, end);
    upstream.write(bodyEnd > end ? Buffer.concat([first, buf.subarray(end, bodyEnd)]) : first);
  }

  private sendBody(chunk: Buffer): void {
    const framing = this.requestBody as BodyFramer;
    const end = bodyBytes(framing, chunk, 0);
    if (end < 0) return void this.client.destroy();
    const upstream = this.upstream as Duplex;
    // Set before writing, as in start().
    if (framing.done) {
      this.state = 'answering';
      if (end < chunk.length) this.buffered = chunk.subarray(end);
    }
    if (!upstream.write(end === chunk.length ? chunk : chunk.subarray(0, end)) && !framing.done) {
      this.client.pause();
      upstream.once('drain', () => this.client.resume());
    }
  }

  /**
   * The connection for the target: the one paired with this client when it is the same upstream, else one from
   * the pool; for no target, a new link into node:http.
   */
  private attach(target: PassTarget | null): Duplex {
    const paired = this.upstreamTarget;
    if (target && paired && this.upstream && !this.upstream.destroyed && paired.host === target.host && paired.port === target.port) return this.upstream;
    this.releaseUpstream();
    const upstream = target ? this.options.pool.take(target.host, target.port) : this.options.nodeLink(this.client);
    upstream.on('data', this.onUpstreamData);
    upstream.on('end', this.onUpstreamEnd);
    upstream.on('close', this.onUpstreamClose);
    upstream.on('error', this.onUpstreamError);
    this.upstream = upstream;
    this.upstreamTarget = target && { host: target.host, port: target.port };
    return upstream;
  }

  private detach(): Duplex | null {
    const upstream = this.upstream;
    if (!upstream) return null;
    upstream.off('data', this.onUpstreamData);
    upstream.off('end', this.onUpstreamEnd);
    upstream.off('close', this.onUpstreamClose);
    upstream.off('error', this.onUpstreamError);
    this.upstream = null;
    return upstream;
  }

  /** Back to the pool: only between requests. */
  private releaseUpstream(): void {
    const target = this.upstreamTarget;
    if (!target) return this.dropUpstream();
    const upstream = this.detach();
    if (upstream) this.options.pool.give(target.host, target.port, upstream as net.Socket);
  }

  private dropUpstream(): void {
    this.detach()?.destroy();
  }

  private readonly onUpstreamData = (chunk: Buffer): void => {
    const answer = this.answer;
    if (!answer) return this.dropUpstream(); // an idle upstream has nothing to say
    let buf = answer.head ? Buffer.concat([answer.head, chunk]) : chunk;
    answer.head = null;
    let bodyFrom = 0;
    // Heads first: interim ones (100 Continue, 103 Early Hints) pass on, the final one sets the body's framing.
    while (!answer.body) {
      const end = headEnd(buf);
      if (end < 0) {
        if (buf.length > MAX_HEAD_BYTES) return this.failUpstream(new Error('the app answered with an oversized head'));
        if (buf.length) answer.head = buf;
        return;
      }
      const head = parseResponseHead(buf, end);
      const framing = head && head.status !== 101 && !head.repeatedFraming ? responseFramer(answer.method, head.status, head.headers) : null;
      if (!head || !framing) return this.failUpstream(new Error('the app answered with a malformed head'));
      if (head.status < 200) {
        this.toClient(buf.subarray(0, end));
        buf = buf.subarray(end);
        continue;
      }
      answer.body = framing;
      answer.close ||= connectionHas(head.headers, 'close') || (head.minor === 0 && !connectionHas(head.headers, 'keep-alive'));
      bodyFrom = end;
    }
    const end = bodyBytes(answer.body, buf, bodyFrom);
    if (end < 0) return this.failUpstream(new Error('the app answered with a malformed chunked body'));
    this.toClient(end === buf.length ? buf : buf.subarray(0, end));
    if (end < buf.length) answer.close = true; // more than the answer: that upstream is not to be trusted again
    if (answer.body.done) this.finishAnswer();
  };

  private toClient(bytes: Buffer): void {
    const answer = this.answer as Answer;
    answer.started = true;
    if (!this.client.write(bytes) && this.upstream) {
      const upstream = this.upstream;
      upstream.pause();
      this.client.once('drain', () => upstream.resume());
    }
  }

  /** The answer is complete: on to the next request, or the end. */
  private finishAnswer(): void {
    const answer = this.answer as Answer;
    this.answer = null;
    // Answered before its request was all sent (e.g. 413): where the rest of the request ends is not worth finding.
    if (answer.close || this.state !== 'answering') return this.endClient();
    if (!this.upstreamTarget) this.dropUpstream();
    this.requestBody = null;
    this.state = 'head';
    if (this.buffered) {
      this.client.resume();
      this.nextRequest();
    } else if (this.clientEnded) {
      this.client.end();
    }
  }

  private endClient(): void {
    this.state = 'closed';
    this.dropUpstream();
    this.client.end();
  }

  private readonly onUpstreamEnd = (): void => {
    const answer = this.answer;
    // A body that runs until the connection closes has just ended.
    if (answer?.body instanceof UntilCloseFramer) {
      this.answer = null;
      return this.endClient();
    }
    if (answer) this.failUpstream(new Error('the app closed the connection before answering'));
    else this.dropUpstream();
  };

  private readonly onUpstreamClose = (): void => {
    if (this.answer) this.failUpstream(new Error('the app closed the connection before answering'));
    else this.detach();
  };

  private readonly onUpstreamError = (err: Error): void => {
    if (this.answer) this.failUpstream(err);
    else this.dropUpstream();
  };

  /** The upstream failed mid-request: a 502 if nothing was sent yet, else the client's connection is cut. */
  private failUpstream(err: Error): void {
    const answer = this.answer;
    this.answer = null;
    this.dropUpstream();
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (answer?.started) {
      this.client.destroy();
      return;
    }
    this.client.end(this.options.badGateway(err), 'latin1');
  }

  private handOff(): void {
    if (this.state !== 'head') return;
    this.state = 'closed';
    this.releaseUpstream();
    const client = this.client;
    client.off('data', this.onClientData);
    client.off('end', this.onClientEnd);
    client.off('error', this.onClientError);
    client.off('close', this.onClientClose);
    client.off('timeout', this.onClientTimeout);
    client.setTimeout(0);
    const buffered = this.buffered;
    this.buffered = null;
    this.options.handOff(client, buffered);
  }
}

/** What the pass-through path takes: HTTP/1.1 without an upgrade, an expectation or repeated framing headers. */
function admissible(head: RequestHead): boolean {
  const h = head.headers;
  return head.minor === 1 && !head.repeatedFraming && h.upgrade === undefined && h.expect === undefined && head.method !== 'CONNECT';
}

/** framer.take, with a malformed body as -1: the connection carrying it is dropped. */
function bodyBytes(framer: BodyFramer, buf: Buffer, from: number): number {
  try {
    return framer.take(buf, from);
  } catch (err) {
    if (err instanceof FramingError) return -1;
    throw err;
  }
}

