/**
 * The dashboard thread's calls to the manager, sent by the main thread (docs/architecture.md "The dashboard's
 * thread"). The dashboard's signing client prepares each request (server/client/client.ts `prepare`: the user's
 * keys beside it, never sent) and hands it over a MessagePort; the main thread signs it (`wireHeaders`, the one
 * signing module), sends it to the manager over loopback TCP with node:http's client, as the dashboard did itself,
 * and hands the answer back. The manager sees the same bytes from the same kind of connection; what moves is
 * node:http's client work and the signature (the agent, the socket writes, the answer's parse, the HMAC: about a
 * third of a relayed call's extra CPU) off the dashboard's thread, which a relayed call's throughput is bound by,
 * onto the main thread, which has the headroom. Both threads are the one Berth process the keys live in anyway.
 *
 * An answer whose Content-Length is at most WHOLE_ANSWER_BYTES comes back in one message; a larger one, or one of
 * unknown length, comes in chunks, paused while the dashboard is not reading. A request the dashboard abandons
 * (its reader destroyed the answer) is ended on the manager's side too.
 */
import http from 'node:http';
import type { MessagePort } from 'node:worker_threads';
import { Readable } from 'node:stream';
import { wireHeaders, type Transport, type WireAnswer, type WireRequest } from '../client/client';

/** Answers up to this size travel in one message; the relay (app/api/manager/route.ts) reads them whole too. */
export const WHOLE_ANSWER_BYTES = 64 * 1024;

type ToMain =
  | { kind: 'request'; id: number; request: WireRequest }
  | { kind: 'pause' | 'resume' | 'cancel'; id: number };

type ToThread =
  | { kind: 'answer'; id: number; status: number; headers: http.IncomingHttpHeaders; body: Uint8Array }
  | { kind: 'head'; id: number; status: number; headers: http.IncomingHttpHeaders }
  | { kind: 'chunk'; id: number; bytes: Uint8Array }
  | { kind: 'end'; id: number }
  | { kind: 'failed'; id: number; message: string };

/** Bytes of their own (so the message can move them instead of copying the pool slab a small Buffer sits in). */
function ownBytes(chunks: readonly Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/** The main thread's side: sends each request the port brings to `managerUrl` and posts its answer back. */
export function serveManagerPort(port: MessagePort, managerUrl: string): { close(): void } {
  const endpoint = new URL(managerUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const open = new Map<number, { request: http.ClientRequest; answer?: http.IncomingMessage }>();
  const post = (message: ToThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  const fail = (id: number, err: Error) => {
    if (open.delete(id)) post({ kind: 'failed', id, message: err.message });
  };

  function send(id: number, wire: WireRequest): void {
    const { method, path, body } = wire;
    const headers = wireHeaders(wire);
    const request = http.request({ host: endpoint.hostname, port: endpoint.port, method, path, headers, agent }, (answer) => {
      const call = open.get(id);
      if (!call) return void answer.destroy();
      call.answer = answer;
      const status = answer.statusCode ?? 502;
      const length = Number(answer.headers['content-length']);
      const chunks: Buffer[] = [];
      let received = 0;
      const whole = length <= WHOLE_ANSWER_BYTES;
      if (!whole) post({ kind: 'head', id, status, headers: answer.headers });
      answer.on('data', (chunk: Buffer) => {
        if (whole) {
          chunks.push(chunk);
          received += chunk.length;
          return;
        }
        const bytes = ownBytes([chunk], chunk.length);
        post({ kind: 'chunk', id, bytes }, [bytes.buffer]);
      });
      answer.once('end', () => {
        if (!open.delete(id)) return;
        if (!whole) return post({ kind: 'end', id });
        const bytes = ownBytes(chunks, received);
        post({ kind: 'answer', id, status, headers: answer.headers, body: bytes }, [bytes.buffer]);
      });
      answer.on('error', (err) => fail(id, err));
      answer.once('aborted', () => fail(id, new Error('the manager closed the answer before its end')));
    });
    open.set(id, { request });
    // `on`, not `once`: a second error event with no listener would end the process.
    request.on('error', (err) => fail(id, err));
    request.end(body);
  }

  port.on('message', (message: ToMain) => {
    if (message.kind === 'request') return send(message.id, message.request);
    const call = open.get(message.id);
    if (!call) return;
    if (message.kind === 'pause') call.answer?.pause();
    else if (message.kind === 'resume') call.answer?.resume();
    else {
      open.delete(message.id);
      call.request.destroy();
    }
  });
  // The port must not keep the process alive on its own: Berth's stop ends the thread, then closes it.
  port.unref();
  return {
    close() {
      for (const call of open.values()) call.request.destroy();
      open.clear();
      port.close();
      agent.destroy();
    },
  };
}

/** A view of bytes that came in a message, as the Buffer node:http's readers expect (no copy). */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** An answer arriving over the port: read as node:http's IncomingMessage is read. */
class PortAnswer extends Readable {
  ended = false;

  constructor(
    private readonly control: (kind: 'pause' | 'resume' | 'cancel') => void,
    readonly statusCode: number,
    readonly headers: http.IncomingHttpHeaders,
  ) {
    super();
  }

  private paused = false;

  /** Called when the reader wants more: a paused answer resumes. */
  _read(): void {
    if (!this.paused) return;
    this.paused = false;
    this.control('resume');
  }

  /** A whole answer's body, then its end. */
  whole(bytes: Uint8Array): void {
    this.push(asBuffer(bytes));
    this.finish();
  }

  deliver(bytes: Uint8Array): void {
    if (!this.push(asBuffer(bytes)) && !this.paused) {
      this.paused = true;
      this.control('pause');
    }
  }

  finish(): void {
    this.ended = true;
    this.push(null);
  }

  _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (!this.ended) this.control('cancel');
    done(err);
  }
}

/** The dashboard thread's side: a Transport for the signing client that sends every request over the port. */
export function portTransport(port: MessagePort): Transport {
  let nextId = 0;
  const waiting = new Map<number, { resolve(answer: WireAnswer): void; reject(err: Error): void }>();
  const streaming = new Map<number, PortAnswer>();
  const control = (id: number) => (kind: 'pause' | 'resume' | 'cancel') => {
    if (kind === 'cancel') streaming.delete(id);
    port.postMessage({ kind, id } satisfies ToMain);
  };

  port.on('message', (message: ToThread) => {
    const { id } = message;
    if (message.kind === 'chunk') return streaming.get(id)?.deliver(message.bytes);
    if (message.kind === 'end') {
      streaming.get(id)?.finish();
      return void streaming.delete(id);
    }
    const caller = waiting.get(id);
    waiting.delete(id);
    if (message.kind === 'failed') {
      const answer = streaming.get(id);
      streaming.delete(id);
      if (answer) {
        answer.ended = true; // nothing left to cancel on the main thread's side
        answer.destroy(new Error(message.message));
      }
      return caller?.reject(new Error(message.message));
    }
    const answer = new PortAnswer(control(id), message.status, message.headers);
    if (message.kind === 'answer') answer.whole(message.body);
    else streaming.set(id, answer);
    caller?.resolve(answer);
  });
  port.unref();

  return (request) =>
    new Promise<WireAnswer>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      const body = request.body && request.body.byteLength !== request.body.buffer.byteLength ? ownBytes([request.body], request.body.length) : request.body;
      port.postMessage({ kind: 'request', id, request: { ...request, body: body as Buffer | undefined } } satisfies ToMain);
    });
}
