/**
 * The request-signing algorithm of CONTRACT §2.2, the one implementation shared by the server (verify), the
 * dashboard's backend-for-frontend, the CLI, the tests and the benchmarks.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const API_VERSION = 'v8.20240915';
export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
export const AUTH_SCHEME = 'Svc';

const ISO_DATE =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2}):?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const recentDates = new Map<string, Date | null>();

/** Parses a Date / X-Svc-Date value (ISO 8601 or RFC 822/1123/7231); a value without a zone is UTC. */
export function parseRequestDate(value: string | undefined | null): Date | null {
  if (!value) return null;
  // Clients send the same value for every request within a second: parse each one once.
  const known = recentDates.get(value);
  if (known !== undefined) return known;
  const parsed = parseDateText(value);
  if (recentDates.size >= 1000) recentDates.clear();
  recentDates.set(value, parsed);
  return parsed;
}

function parseDateText(value: string): Date | null {
  const text = trimHeader(value);
  const iso = ISO_DATE.exec(text);
  if (iso) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = iso;
    const ms = Number((frac + '000').slice(0, 3));
    let epoch = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, ms);
    if (zone && zone.toUpperCase() !== 'Z') {
      const sign = zone[0] === '-' ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      epoch -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0')) * 60_000;
    }
    const inRange = +mo >= 1 && +mo <= 12 && +d >= 1 && +d <= 31 && +h < 24 && +mi < 60 && +s < 61;
    return inRange && Number.isFinite(epoch) ? new Date(epoch) : null;
  }
  // RFC 822 family: Date.parse understands it; without a zone it would read local time, so pin UTC.
  const hasZone = /(GMT|UTC|UT|Z|[+-]\d{4}|[ECMP][SD]T)\s*$/i.test(text);
  const epoch = Date.parse(hasZone ? text : `${text} GMT`);
  return Number.isNaN(epoch) ? null : new Date(epoch);
}

const pad = (n: number) => (n < 10 ? '0' : '') + n;

/** `format`, computed once per second of the date: a busy client signs many requests within one second. */
function oncePerSecond(format: (date: Date) => string): (date: Date) => string {
  let lastSecond = NaN;
  let last = '';
  return (date) => {
    const second = Math.floor(date.getTime() / 1000);
    if (second !== lastSecond) {
      last = format(date);
      lastSecond = second;
    }
    return last;
  };
}

/** The date as it enters the string to sign: YYYYmmddTHHMMSSZ in UTC. */
export const formatSignDate = oncePerSecond(
  (date) => `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}T${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`,
);

/**
 * The Date header a client sends: ISO 8601 to the second, as signed (the string to sign has no milliseconds). The
 * same text for every request within a second, so the manager's parse of it is remembered (parseRequestDate).
 */
export const formatDateHeader = oncePerSecond((date) => `${date.toISOString().slice(0, 19)}Z`);

const isHeaderSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;

/** Canonical header value: leading and trailing LF, CR, space and tab removed. */
export function trimHeader(value: string): string {
  // Almost every value is already trimmed: skip the regular expression then.
  if (!value || (!isHeaderSpace(value.charCodeAt(0)) && !isHeaderSpace(value.charCodeAt(value.length - 1)))) return value;
  return value.replace(/^[\n\r \t]+|[\n\r \t]+$/g, '');
}

export function sha256Hex(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('hex');
}

const signingKeys = new Map<string, Buffer>();

/** HMAC(HMAC(secret, YYYYmmdd), host): the same all day for a key and host, so it is derived once and kept. */
export function deriveSigningKey(secretKey: string, date: Date, host: string): Buffer {
  const day = formatSignDate(date).slice(0, 8);
  const cacheKey = `${secretKey}\n${day}\n${host}`;
  let key = signingKeys.get(cacheKey);
  if (!key) {
    const k1 = createHmac('sha256', secretKey).update(day, 'utf8').digest();
    key = createHmac('sha256', k1).update(trimHeader(host), 'utf8').digest();
    if (signingKeys.size >= 10_000) signingKeys.clear();
    signingKeys.set(cacheKey, key);
  }
  return key;
}

export interface SignatureInput {
  method: string;
  /** Path plus `?query` exactly as on the request line. */
  uri: string;
  date: Date;
  host: string;
  contentType: string;
  version: string;
  bodySha256: string;
}

export function stringToSign(input: SignatureInput): string {
  return (
    `${input.method.toUpperCase()}\n${input.uri}\n${formatSignDate(input.date)}\n` +
    `host:${trimHeader(input.host)}\ncontent-type:${trimHeader(input.contentType)}\n` +
    `x-svc-version:${trimHeader(input.version)}\n${input.bodySha256}`
  );
}

function signatureDigest(secretKey: string, input: SignatureInput): Buffer {
  return createHmac('sha256', deriveSigningKey(secretKey, input.date, input.host)).update(stringToSign(input), 'utf8').digest();
}

export function computeSignature(secretKey: string, input: SignatureInput): string {
  return signatureDigest(secretKey, input).toString('hex');
}

const HEX_SIGNATURE = /^[0-9a-fA-F]{64}$/;

/** Whether `given` (hex, either case) is the signature of `input`, compared in constant time. */
export function signatureValid(secretKey: string, input: SignatureInput, given: string): boolean {
  if (!HEX_SIGNATURE.test(given)) return false;
  return timingSafeEqual(signatureDigest(secretKey, input), Buffer.from(given, 'hex'));
}

export interface ParsedAuthorization {
  scheme: string;
  hash: string;
  accessKey: string;
  signature: string;
}

const AUTHORIZATION = /^(Svc|BackendAI)\s+signMethod=HMAC-([A-Z0-9-]+)\s*,\s*credential=([^:\s]+):([0-9a-fA-F]+)\s*$/;

/** Parses `Svc signMethod=HMAC-SHA256, credential=AK:SIG`; null when malformed. */
export function parseAuthorization(header: string): ParsedAuthorization | null {
  const match = AUTHORIZATION.exec(trimHeader(header));
  if (!match) return null;
  return { scheme: match[1], hash: match[2].toUpperCase(), accessKey: match[3], signature: match[4] };
}

export interface SignRequestInput {
  method: string;
  uri: string;
  host: string;
  accessKey: string;
  secretKey: string;
  body?: Uint8Array | string;
  contentType?: string;
  version?: string;
  date?: Date;
}

/** The headers a client sends for one request: Date, Content-Type, X-Svc-Version and Authorization. */
export function signRequest(input: SignRequestInput): Record<string, string> {
  const date = input.date ?? new Date();
  const contentType = input.contentType ?? 'application/json';
  const version = input.version ?? API_VERSION;
  const bodySha256 = input.body && input.body.length ? sha256Hex(input.body) : EMPTY_BODY_SHA256;
  const signature = computeSignature(input.secretKey, {
    method: input.method,
    uri: input.uri,
    date,
    host: input.host,
    contentType,
    version,
    bodySha256,
  });
  return {
    Date: formatDateHeader(date),
    'Content-Type': contentType,
    'X-Svc-Version': version,
    Authorization: `${AUTH_SCHEME} signMethod=HMAC-SHA256, credential=${input.accessKey}:${signature}`,
  };
}
