/**
 * An in-memory connection into node:http's server, carrying one request the pass-through path does not forward
 * itself (the proxy's own endpoints, refusals, tunneled apps): node:http answers it as on any connection, and the
 * client's connection stays with the pass-through path for its next request. The link reports the client's
 * addresses, which the full path reads (X-Forwarded-For, a TCP app's allowed address).
 */
import { Duplex } from 'node:stream';
import type net from 'node:net';

class LinkEnd extends Duplex {
  peer: LinkEnd | null = null;

  constructor(private readonly client: net.Socket) {
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

/** Opens a link: node:http gets one end as a new connection (`accept`), the caller writes into the other. */
export function openNodeLink(client: net.Socket, accept: (socket: Duplex) => void): Duplex {
  const ours = new LinkEnd(client);
  const theirs = new LinkEnd(client);
  ours.peer = theirs;
  theirs.peer = ours;
  accept(theirs);
  return ours;
}
