/** The signed request path: signature, dates, versions, rate limits, errors. One behaviour per test. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { startTestBerth, type TestBerth } from '../helpers/berth';
import { signRequest } from '../../server/client/sign';

let t: TestBerth;
beforeAll(async () => {
  t = await startTestBerth();
});
afterAll(() => t?.stop());

function send(method: string, uri: string, headers: Record<string, string>, body?: string) {
  const url = new URL(t.url);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: uri, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function signed(method: string, uri: string, opts: { body?: string; date?: Date; version?: string; secret?: string; host?: string } = {}) {
  const host = opts.host ?? new URL(t.url).host;
  const headers = signRequest({
    method, uri, host, accessKey: t.adminCreds.accessKey, secretKey: opts.secret ?? t.adminCreds.secretKey,
    body: opts.body, date: opts.date, version: opts.version,
  });
  return { ...headers, Host: host } as Record<string, string>;
}

describe('version endpoints', () => {
  it('GET / answers unsigned with the API version', async () => {
    const res = await t.anonymous.request('GET', '/');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ version: 'v8.20240915', manager: expect.any(String) });
  });

  it('GET /v2 answers a signed request with the version', async () => {
    expect(await t.admin.call('GET', '/v2')).toMatchObject({ version: 'v8.20240915' });
  });

  it('every answer carries Content-Language, Server and the rate-limit headers', async () => {
    const res = await t.admin.request('GET', '/v2');
    expect(res.headers['content-language']).toBe('en');
    expect(res.headers['server']).toBe('Berth');
    expect(res.headers['x-ratelimit-limit']).toBe('10000');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(10000);
    expect(res.headers['x-ratelimit-reset']).toBe('0');
    expect(res.headers['x-ratelimit-window']).toBe('900');
  });

  it('anonymous answers, errors included, carry the anonymous limit 1000', async () => {
    for (const res of [await t.anonymous.request('GET', '/'), await t.anonymous.request('GET', '/no/such/route')]) {
      expect(res.headers['content-language']).toBe('en');
      expect(res.headers['x-ratelimit-limit']).toBe('1000');
      expect(res.headers['x-ratelimit-remaining']).toBe('1000');
      expect(res.headers['x-ratelimit-window']).toBe('900');
    }
  });
});

describe('authorization', () => {
  it('no Authorization header → 401 with the spec detail and rate-limit headers', async () => {
    const res = await t.anonymous.request('GET', '/v2');
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json()).toMatchObject({ type: 'https://errors.berth.dev/auth-failed', title: 'Unauthorized access', detail: 'Authorization header is missing.' });
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    expect(res.headers['x-ratelimit-remaining']).toBeDefined();
    expect(res.headers['x-ratelimit-reset']).toBeDefined();
  });

  it('no Authorization header → 401 even when the body is oversized and the date is bad', async () => {
    const res = await send('POST', '/auth', { 'Content-Type': 'application/json', Date: 'nonsense' }, 'x'.repeat(2 * 1024 * 1024));
    expect(res.status).toBe(401);
  });

  it('wrong secret → 401 Signature mismatch', async () => {
    const res = await send('GET', '/v2', signed('GET', '/v2', { secret: 'x'.repeat(40) }));
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('Signature mismatch');
  });

  it('unknown access key → 401 Access key not found', async () => {
    const headers = signed('GET', '/v2');
    headers.Authorization = headers.Authorization.replace(t.adminCreds.accessKey, 'AKUNKNOWN0000000000X');
    const res = await send('GET', '/v2', headers);
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('Access key not found');
  });

  it('malformed Authorization → 400 invalid-auth-params', async () => {
    const headers = { ...signed('GET', '/v2'), Authorization: 'Svc garbage' };
    const res = await send('GET', '/v2', headers);
    expect(res.status).toBe(400);
    expect(res.body.type).toContain('invalid-auth-params');
  });

  it('an unsupported hash → 400 invalid-auth-params', async () => {
    const headers = signed('GET', '/v2');
    headers.Authorization = headers.Authorization.replace('HMAC-SHA256', 'HMAC-MD5');
    expect((await send('GET', '/v2', headers)).status).toBe(400);
  });

  it('a tampered body → 401', async () => {
    const headers = signed('POST', '/auth', { body: '{"echo":"a"}' });
    const res = await send('POST', '/auth', headers, '{"echo":"b"}');
    expect(res.status).toBe(401);
  });

  it('a tampered query → 401', async () => {
    const headers = signed('GET', '/auth?echo=a');
    const res = await send('GET', '/auth?echo=b', headers);
    expect(res.status).toBe(401);
  });

  it('a signature for another host → 401 (Host with port is signed)', async () => {
    const headers = { ...signed('GET', '/v2', { host: '127.0.0.1' }), Host: new URL(t.url).host };
    expect((await send('GET', '/v2', headers)).status).toBe(401);
  });

  it('the BackendAI scheme name is accepted', async () => {
    const headers = signed('GET', '/v2');
    headers.Authorization = headers.Authorization.replace(/^Svc/, 'BackendAI');
    expect((await send('GET', '/v2', headers)).status).toBe(200);
  });

  it.each([
    ['RFC 822', (d: Date) => d.toUTCString()],
    ['ISO 8601 with a numeric offset', (d: Date) => new Date(d.getTime() + 9 * 3600_000).toISOString().replace('.000Z', '+09:00')],
    ['ISO 8601 without a zone (UTC)', (d: Date) => d.toISOString().replace('.000Z', '')],
    ['ISO 8601 basic form', (d: Date) => d.toISOString().replace('.000Z', 'Z').replace(/[-:]/g, '')],
  ])('a Date in %s form is accepted and signed as YYYYmmddTHHMMSSZ', async (_, form) => {
    const when = new Date(Math.floor(Date.now() / 1000) * 1000);
    const headers = signed('GET', '/v2', { date: when });
    headers.Date = form(when);
    expect((await send('GET', '/v2', headers)).status).toBe(200);
  });

  it('Date wins over X-Svc-Date when both are present', async () => {
    const good = signed('GET', '/v2');
    expect((await send('GET', '/v2', { ...good, 'X-Svc-Date': 'nonsense' })).status).toBe(200);
    const res = await send('GET', '/v2', { ...good, 'X-Svc-Date': good.Date, Date: new Date(Date.now() - 3600_000).toUTCString() });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Date/time sync error');
  });

  it("a client IP outside the user's allowed_client_ip → 401; the first X-Forwarded-For hop is the client", async () => {
    const user = await t.createUser();
    const query = `mutation { modify_user(email: "${user.email}", props: { allowed_client_ip: ["10.0.0.0/8"] }) { ok } }`;
    expect((await t.admin.call('POST', '/admin/gql', { body: { query } })).data.modify_user.ok).toBe(true);
    const refused = await user.client.request('GET', '/v2');
    expect(refused.status).toBe(401);
    expect(refused.json().type).toBe('https://errors.berth.dev/auth-failed');
    expect((await user.client.request('GET', '/v2', { headers: { 'X-Forwarded-For': '11.0.0.1' } })).status).toBe(401);
    expect((await user.client.request('GET', '/v2', { headers: { 'X-Forwarded-For': '10.1.2.3, 127.0.0.1' } })).status).toBe(200);
  });

  it('X-Svc-Date is used when Date is absent', async () => {
    const headers: Record<string, string> = signed('GET', '/v2');
    headers['X-Svc-Date'] = headers.Date;
    delete headers.Date;
    expect((await send('GET', '/v2', headers)).status).toBe(200);
  });
});

describe('clock skew', () => {
  it.each([
    ['16 minutes behind', -16 * 60_000, 400],
    ['16 minutes ahead', 16 * 60_000, 400],
    ['14 minutes behind', -14 * 60_000, 200],
    ['14 minutes ahead', 14 * 60_000, 200],
  ])('%s → %i', async (_, offset, status) => {
    const date = new Date(Date.now() + offset);
    const res = await send('GET', '/v2', signed('GET', '/v2', { date }));
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.detail).toBe('Date/time sync error');
  });

  it('a missing date → 400', async () => {
    const headers: Record<string, string> = signed('GET', '/v2');
    delete headers.Date;
    expect((await send('GET', '/v2', headers)).status).toBe(400);
  });
});

describe('API versions', () => {
  it.each([
    ['v4.20190315', 200],
    ['v8.20240915', 200],
    ['v8.20991231', 400],
    ['v9.20240101', 400],
    ['v3.20170615', 400],
    ['banana', 400],
  ])('%s → %i', async (version, status) => {
    const res = await send('GET', '/v2', signed('GET', '/v2', { version }));
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.detail).toBe('Unsupported API version.');
  });

  it('a missing version → 400 invalid-auth-params', async () => {
    const headers: Record<string, string> = signed('GET', '/v2');
    delete headers['X-Svc-Version'];
    const res = await send('GET', '/v2', headers);
    expect(res.status).toBe(400);
    expect(res.body.type).toContain('invalid-auth-params');
  });
});

describe('routing and bodies', () => {
  it('an unknown path → 404 url-not-found', async () => {
    const res = await t.admin.request('GET', '/no/such/thing');
    expect(res.status).toBe(404);
    expect(res.json().type).toContain('url-not-found');
  });

  it('a known path with a wrong method → 405 with Allow', async () => {
    const res = await t.admin.request('DELETE', '/v2');
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toContain('GET');
  });

  it('a non-JSON body → 400 invalid-api-params', async () => {
    const res = await t.admin.request('POST', '/auth', { rawBody: '{not json' });
    expect(res.status).toBe(400);
    expect(res.json().type).toContain('invalid-api-params');
  });

  it('a JSON array body → 400', async () => {
    expect((await t.admin.request('POST', '/auth', { rawBody: '["echo"]' })).status).toBe(400);
  });

  it('a missing field → 400 with the field named in data', async () => {
    const res = await t.admin.request('POST', '/auth', { body: {} });
    expect(res.status).toBe(400);
    expect(res.json().data).toHaveProperty('echo');
  });

  it('a mistyped field → 400', async () => {
    expect((await t.admin.request('POST', '/auth', { body: { echo: 42 } })).status).toBe(400);
  });

  it('an oversized body → 413 and the server keeps serving', async () => {
    const res = await t.admin.request('POST', '/auth', { body: { echo: 'x'.repeat(2 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.json().type).toContain('payload-too-large');
    expect((await t.admin.request('GET', '/v2')).status).toBe(200);
  });

  it('a request head over 16 KiB → 431 problem+json, and the server keeps serving', async () => {
    const uri = `/v2?pad=${'x'.repeat(17_000)}`;
    const res = await send('GET', uri, signed('GET', uri));
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.body.type).toBe('https://errors.berth.dev/request-header-fields-too-large');
    expect((await t.admin.request('GET', '/v2')).status).toBe(200);
  });

  it('X-Method-Override routes a POST as the named method', async () => {
    const res = await t.admin.request('POST', '/auth?echo=via-override', { headers: { 'X-Method-Override': 'GET' } });
    expect(res.status).toBe(200);
    expect(res.json().echo).toBe('via-override');
  });

  it('GET /openapi.json describes the routes with their privilege', async () => {
    const doc = (await t.anonymous.request('GET', '/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/auth/authorize'].post['x-privilege']).toBe('none');
    expect(doc.paths['/v2'].get.security).toEqual([{ svcSignature: [] }]);
  });
});

describe('rate limiting', () => {
  it('counts per key, answers 429 with Retry-After past the limit, and resets nothing for other keys', async () => {
    const user = await t.createUser({ rateLimit: 3 });
    const statuses = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await user.client.request('GET', '/v2');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.json().type).toContain('rate-limit-exceeded');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect(last!.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(last!.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    expect((await t.admin.request('GET', '/v2')).status).toBe(200);
  });
});
