import { describe, expect, it } from 'vitest';
import { webcrypto } from 'node:crypto';
import {
  computeSignature,
  formatSignDate,
  parseAuthorization,
  parseRequestDate,
  signRequest,
  signatureValid,
  stringToSign,
  sha256Hex,
} from '../../server/client/sign';

const SECRET = 'Sk1234567890abcdefghijABCDEFGHIJ12345678';
const HOST = '127.0.0.1:8081';
const WHEN = new Date(Date.UTC(2026, 10, 22, 7, 15, 0));

/** An independent implementation of CONTRACT §2.2 over WebCrypto, to check the module against. */
async function referenceSignature(method: string, uri: string, body: string): Promise<string> {
  const enc = new TextEncoder();
  const hmac = async (key: Uint8Array, msg: string) => {
    const k = await webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return new Uint8Array(await webcrypto.subtle.sign('HMAC', k, enc.encode(msg)));
  };
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  const bodyHash = hex(new Uint8Array(await webcrypto.subtle.digest('SHA-256', enc.encode(body))));
  const signingKey = await hmac(await hmac(enc.encode(SECRET), '20261122'), HOST);
  const lines = [method, uri, '20261122T071500Z', `host:${HOST}`, 'content-type:application/json', 'x-svc-version:v8.20240915', bodyHash];
  return hex(await hmac(signingKey, lines.join('\n')));
}

const input = (method: string, uri: string, body: string) => ({
  method,
  uri,
  date: WHEN,
  host: HOST,
  contentType: 'application/json',
  version: 'v8.20240915',
  bodySha256: sha256Hex(body),
});

describe('request signing (CONTRACT §2.2)', () => {
  it('matches known-answer vectors computed with Python hmac', () => {
    expect(computeSignature(SECRET, input('POST', '/config/get?x=%2F1', '{"key":"a/b","prefix":true}'))).toBe(
      'f76ca42d044acfb45cd3a0e72b9b7c133b2c4abc5e6180af2bbb28fc64401a92',
    );
    expect(computeSignature(SECRET, input('GET', '/v2', ''))).toBe('16f025b1407b351a64782e92197e43f6caec509c55802db8e2c8cf0443667897');
  });

  it('matches an independent WebCrypto implementation', async () => {
    for (const [method, uri, body] of [
      ['GET', '/folders?group_id=abc&x=%20y', ''],
      ['POST', '/auth', '{"echo":"héllo"}'],
      ['DELETE', '/session/s1?forced=true', ''],
    ]) {
      expect(computeSignature(SECRET, input(method, uri, body))).toBe(await referenceSignature(method, uri, body));
    }
  });

  it('builds the seven-line string to sign with no trailing newline', () => {
    const text = stringToSign(input('get', '/v2', ''));
    const lines = text.split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe('GET');
    expect(lines[2]).toBe('20261122T071500Z');
    expect(lines[6]).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('trims header values before use', () => {
    const a = computeSignature(SECRET, { ...input('GET', '/v2', ''), host: `  ${HOST}\t`, version: ' v8.20240915\r\n' });
    expect(a).toBe(computeSignature(SECRET, input('GET', '/v2', '')));
  });

  it('changes when any signed part changes', () => {
    const base = computeSignature(SECRET, input('GET', '/v2', ''));
    expect(computeSignature(SECRET, input('GET', '/v2?', ''))).not.toBe(base);
    expect(computeSignature(SECRET, { ...input('GET', '/v2', ''), host: '127.0.0.1' })).not.toBe(base);
    expect(computeSignature(SECRET, input('GET', '/v2', 'x'))).not.toBe(base);
    expect(computeSignature(SECRET, { ...input('GET', '/v2', ''), date: new Date(WHEN.getTime() + 1000) })).not.toBe(base);
  });

  it('verifies a signature in either hex case and refuses any other', () => {
    const good = computeSignature(SECRET, input('GET', '/v2', ''));
    expect(signatureValid(SECRET, input('GET', '/v2', ''), good)).toBe(true);
    expect(signatureValid(SECRET, input('GET', '/v2', ''), good.toUpperCase())).toBe(true);
    expect(signatureValid(SECRET, input('GET', '/v2', 'x'), good)).toBe(false);
    expect(signatureValid('another-secret', input('GET', '/v2', ''), good)).toBe(false);
    const flipped = (good[0] === '0' ? '1' : '0') + good.slice(1);
    expect(signatureValid(SECRET, input('GET', '/v2', ''), flipped)).toBe(false);
    for (const malformed of [good.slice(2), `${good}00`, `${good.slice(1)}g`, '']) {
      expect(signatureValid(SECRET, input('GET', '/v2', ''), malformed)).toBe(false);
    }
  });

  it('produces headers whose Authorization carries the access key and signature', () => {
    const headers = signRequest({ method: 'GET', uri: '/v2', host: HOST, accessKey: 'AKTEST', secretKey: SECRET, date: WHEN });
    const parsed = parseAuthorization(headers.Authorization)!;
    expect(parsed).toMatchObject({ scheme: 'Svc', hash: 'SHA256', accessKey: 'AKTEST' });
    expect(parsed.signature).toBe('16f025b1407b351a64782e92197e43f6caec509c55802db8e2c8cf0443667897');
    expect(parseRequestDate(headers.Date)!.getTime()).toBe(WHEN.getTime());
  });

  it('sends the Date to the second, as it is signed, whatever the milliseconds', () => {
    const sign = (date: Date) => signRequest({ method: 'GET', uri: '/v2', host: HOST, accessKey: 'AKTEST', secretKey: SECRET, date });
    const later = sign(new Date(WHEN.getTime() + 999));
    expect(later.Date).toBe('2026-11-22T07:15:00Z');
    expect(later.Authorization).toBe(sign(WHEN).Authorization);
    expect(sign(new Date(WHEN.getTime() + 1000)).Date).toBe('2026-11-22T07:15:01Z');
  });
});

describe('request dates', () => {
  it.each([
    ['2026-11-22T07:15:00Z', WHEN],
    ['2026-11-22T07:15:00', WHEN],
    ['2026-11-22T07:15:00.123Z', new Date(WHEN.getTime() + 123)],
    ['2026-11-22T09:15:00+02:00', WHEN],
    ['20261122T071500Z', WHEN],
    ['Sun, 22 Nov 2026 07:15:00 GMT', WHEN],
    ['Sun, 22 Nov 2026 07:15:00', WHEN],
  ])('parses %s', (text, expected) => {
    expect(parseRequestDate(text)?.getTime()).toBe(expected.getTime());
  });

  it.each(['', 'yesterday', '2026-13-40T99:00:00Z'])('rejects %j', (text) => {
    expect(parseRequestDate(text)).toBeNull();
  });

  it('formats the signing date as YYYYmmddTHHMMSSZ', () => {
    expect(formatSignDate(new Date(WHEN.getTime() + 999))).toBe('20261122T071500Z');
  });

  it('accepts the BackendAI scheme and rejects malformed headers', () => {
    expect(parseAuthorization('BackendAI signMethod=HMAC-SHA256, credential=AK:abcdef')?.scheme).toBe('BackendAI');
    expect(parseAuthorization('Bearer xyz')).toBeNull();
    expect(parseAuthorization('Svc signMethod=HMAC-SHA256 credential=AK:abc')).toBeNull();
  });
});
