/**
 * HTTP/1.1 message heads for the pass-through path, parsed strictly: anything unusual (obs-fold, a bare CR or LF,
 * NUL, a malformed line) is "not for us" rather than an error, so the caller hands the connection to node:http,
 * which answers it as it always did. Header names come out lower-cased, duplicates folded the way node:http folds
 * them (IncomingMessage.headers), so the rest of the proxy sees the same object either way.
 */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\0\r\n]/;
const REQUEST_LINE = /^([A-Z]+) ([!-~]+) HTTP\/1\.([01])$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\0\r\n]*)?$/;
/** node:http keeps the first of these and drops repeats. */
const SINGLE = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after',
  'server', 'user-agent',
]);

export type Headers = Record<string, string>;

export interface RequestHead {
  method: string;
  target: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  minor: number;
  headers: Headers;
  /** A header that node:http would refuse or treat specially appeared twice (content-length, transfer-encoding). */
  repeatedFraming: boolean;
}

export interface ResponseHead {
  status: number;
  minor: number;
  headers: Headers;
  repeatedFraming: boolean;
}

/** The end of the head in `buf` (the index just past CRLF CRLF), or -1 while it is incomplete. */
export function headEnd(buf: Buffer, from = 0): number {
  const at = buf.indexOf('\r\n\r\n', Math.max(0, from - 3), 'latin1');
  return at < 0 ? -1 : at + 4;
}

function parseFields(lines: string[]): { headers: Headers; repeatedFraming: boolean } | null {
  const headers: Headers = {};
  let repeatedFraming = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) return null;
    const value = line.slice(colon + 1).trim();
    if (BAD_VALUE.test(value)) return null;
    const key = name.toLowerCase();
    const was = headers[key];
    if (was === undefined) headers[key] = value;
    else if (key === 'content-length' || key === 'transfer-encoding') repeatedFraming = true;
    else if (SINGLE.has(key)) continue;
    else headers[key] = `${was}${key === 'cookie' ? '; ' : ', '}${value}`;
  }
  return { headers, repeatedFraming };
}

/** The request head in buf[0, end), or null when it is not plain HTTP/1.x the pass-through path takes. */
export function parseRequestHead(buf: Buffer, end: number): RequestHead | null {
  const lines = buf.toString('latin1', 0, end - 4).split('\r\n');
  const start = REQUEST_LINE.exec(lines[0]);
  if (!start) return null;
  const fields = parseFields(lines);
  return fields && { method: start[1], target: start[2], minor: Number(start[3]), ...fields };
}

export function parseResponseHead(buf: Buffer, end: number): ResponseHead | null {
  const lines = buf.toString('latin1', 0, end - 4).split('\r\n');
  const start = STATUS_LINE.exec(lines[0]);
  if (!start) return null;
  const fields = parseFields(lines);
  return fields && { status: Number(start[2]), minor: Number(start[1]), ...fields };
}

/** The request line and fields as sent upstream: one string, written with the first body bytes. */
export function serializeRequestHead(method: string, path: string, headers: Headers): string {
  let out = `${method} ${path} HTTP/1.1\r\n`;
  for (const name in headers) out += `${name}: ${headers[name]}\r\n`;
  return out + '\r\n';
}

/** Whether `connection` lists the token (e.g. close, upgrade), case-insensitively. */
export function connectionHas(headers: Headers, token: string): boolean {
  const value = headers.connection;
  return value !== undefined && value.toLowerCase().split(',').some((t) => t.trim() === token);
}
