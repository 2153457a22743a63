/**
 * An in-memory connection: two Duplex ends, each writing into the other, that node:http takes as a socket (a server
 * gets one end through its 'connection' event). The app proxy's pass-through path gives node:http, this way, one
 * request it does not forward itself (../appproxy/passthrough). Both ends report the addresses of `client` (the
 * real client's socket), which the server reads (X-Forwarded-For, a TCP app's allowed address).
 *
 * Tried and left out: the dashboard's relay reaching a manager in the same process over such links instead of
 * loopback TCP was no faster (bench/dashboard.mjs's relay at concurrency 8: 512-563 req/s linked, 517-620 over TCP).
 */
import { Duplex } from 'node:stream';

/** The addresses a link's ends report: a real client's socket, or fixed values. */
export interface LinkAddresses {
  readonly remoteAddress?: string;
  readonly remotePort?: number;
  readonly remoteFamily?: string;
  readonly localAddress?: string;
  readonly localPort?: number;
}

class LinkEnd extends Duplex {
  peer: LinkEnd | null = null;

  constructor(private readonly client: LinkAddresses) {
    super({ allowHalfOpen: true });
  }

  get remoteAddress(): string | undefined {
    return this.client.remoteAddress;
  }

  get remotePort(): number | undefined {
    return this.client.remotePort;
  }

  get remoteFamily(): string | undefined {
    return this.client.remoteFamily;
  }

  get localAddress(): string | undefined {
    return this.client.localAddress;
  }

  get localPort(): number | undefined {
    return this.client.localPort;
  }

  setTimeout(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.peer?.push(chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer?.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const peer = this.peer;
    this.peer = null;
    if (peer && !peer.destroyed) peer.destroy();
    callback(error);
  }
}

/** Opens a link: a server gets one end as a new connection (`accept`), the caller writes into the other. */
export function openMemoryLink(client: LinkAddresses, accept: (socket: Duplex) => void): Duplex {
  const ours = new LinkEnd(client);
  const theirs = new LinkEnd(client);
  ours.peer = theirs;
  theirs.peer = ours;
  accept(theirs);
  return ours;
}
