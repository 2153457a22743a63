/**
 * Where a message body ends, without changing a byte of it: the pass-through path forwards bodies as they arrive
 * and only needs to know where the next message starts. A chunked body is followed through its size lines and
 * trailers; a malformed one is an error (the connection is dropped: past this point nobody can tell where the
 * next message starts).
 */
const CR = 13;
const LF = 10;
/** Longer than any honest chunk size line; a size above 2^53 is refused by the value check instead. */
const MAX_SIZE_DIGITS = 13;

const enum Chunked {
  Size,
  Extension,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerStart,
  Trailer,
  TrailerLf,
  FinalLf,
  Done,
}

export class FramingError extends Error {}

export interface BodyFramer {
  readonly done: boolean;
  /** Consumes body bytes from buf[from..]; answers the index just past the body's last byte in buf, or buf.length. */
  take(buf: Buffer, from: number): number;
}

/** A body of a known length (Content-Length; 0 for none). */
export class LengthFramer implements BodyFramer {
  constructor(private left: number) {}

  get done(): boolean {
    return this.left === 0;
  }

  take(buf: Buffer, from: number): number {
    const end = Math.min(buf.length, from + this.left);
    this.left -= end - from;
    return end;
  }
}

/** A body that ends when the connection does (a response without length or chunking). */
export class UntilCloseFramer implements BodyFramer {
  readonly done = false;

  take(buf: Buffer): number {
    return buf.length;
  }
}

export class ChunkedFramer implements BodyFramer {
  private state = Chunked.Size;
  private size = 0;
  private digits = 0;
  private left = 0;

  get done(): boolean {
    return this.state === Chunked.Done;
  }

  take(buf: Buffer, from: number): number {
    let i = from;
    while (i < buf.length && !this.done) {
      if (this.state === Chunked.Data) {
        const end = Math.min(buf.length, i + this.left);
        this.left -= end - i;
        i = end;
        if (this.left === 0) this.state = Chunked.DataCr;
        continue;
      }
      this.step(buf[i]);
      i += 1;
    }
    return i;
  }

  private step(byte: number): void {
    switch (this.state) {
      case Chunked.Size: {
        const digit = hexValue(byte);
        if (digit >= 0) {
          if (++this.digits > MAX_SIZE_DIGITS) throw new FramingError('chunk size too long');
          this.size = this.size * 16 + digit;
          return;
        }
        if (this.digits === 0) throw new FramingError('chunk size missing');
        if (byte === CR) this.state = Chunked.SizeLf;
        else if (byte === 0x3b /* ; */ || byte === 0x20 || byte === 0x09) this.state = Chunked.Extension;
        else throw new FramingError('bad chunk size');
        return;
      }
      case Chunked.Extension:
        if (byte === CR) this.state = Chunked.SizeLf;
        else if (byte === LF || byte === 0) throw new FramingError('bad chunk extension');
        return;
      case Chunked.SizeLf:
        if (byte !== LF) throw new FramingError('bad chunk size line');
        if (this.size === 0) {
          this.state = Chunked.TrailerStart;
        } else {
          this.left = this.size;
          this.state = Chunked.Data;
        }
        this.size = 0;
        this.digits = 0;
        return;
      case Chunked.DataCr:
        if (byte !== CR) throw new FramingError('chunk longer than its size');
        this.state = Chunked.DataLf;
        return;
      case Chunked.DataLf:
        if (byte !== LF) throw new FramingError('chunk longer than its size');
        this.state = Chunked.Size;
        return;
      case Chunked.TrailerStart:
        if (byte === CR) this.state = Chunked.FinalLf;
        else if (byte === LF || byte === 0) throw new FramingError('bad trailer');
        else this.state = Chunked.Trailer;
        return;
      case Chunked.Trailer:
        if (byte === CR) this.state = Chunked.TrailerLf;
        else if (byte === LF || byte === 0) throw new FramingError('bad trailer');
        return;
      case Chunked.TrailerLf:
        if (byte !== LF) throw new FramingError('bad trailer');
        this.state = Chunked.TrailerStart;
        return;
      case Chunked.FinalLf:
        if (byte !== LF) throw new FramingError('bad end of chunked body');
        this.state = Chunked.Done;
        return;
      case Chunked.Done:
        return;
    }
  }
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** The request body's framer from its head, or null when the framing is one the pass-through path leaves alone. */
export function requestFramer(headers: Record<string, string>): BodyFramer | null {
  const coding = headers['transfer-encoding'];
  const length = headers['content-length'];
  if (coding !== undefined) return length === undefined && coding.toLowerCase() === 'chunked' ? new ChunkedFramer() : null;
  if (length === undefined) return new LengthFramer(0);
  return /^\d{1,15}$/.test(length) ? new LengthFramer(Number(length)) : null;
}

/**
 * The response body's framer (RFC 9112 §6.3): none after HEAD and for 1xx, 204 and 304; chunked when the last
 * coding is chunked; otherwise Content-Length, or until the connection closes. Null for a head that cannot be framed.
 */
export function responseFramer(method: string, status: number, headers: Record<string, string>): BodyFramer | null {
  if (method === 'HEAD' || status < 200 || status === 204 || status === 304) return new LengthFramer(0);
  const coding = headers['transfer-encoding'];
  if (coding !== undefined) {
    const codings = coding.toLowerCase().split(',');
    return codings[codings.length - 1].trim() === 'chunked' ? new ChunkedFramer() : new UntilCloseFramer();
  }
  const length = headers['content-length'];
  if (length === undefined) return new UntilCloseFramer();
  return /^\d{1,15}$/.test(length) ? new LengthFramer(Number(length)) : null;
}
