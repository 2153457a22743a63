/** Wildcard-subdomain mode (BERTH_APP_DOMAIN): each app is served only on <route>.<domain>, its own origin. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';

let t: TestBerth;
let alice: TestUser;
let sessionId: string;

beforeAll(async () => {
  t = await startTestBerth({ appDomain: 'apps.example.test' }, { roles: ['manager', 'apps'] });
  alice = await t.createUser();
  sessionId = (await alice.client.call('POST', '/session', { body: { name: 'wild-sess', image: 'python' } })).sessionId;
}, 120_000);
afterAll(() => t?.stop());

/** A request to the proxy's port with the Host a browser would send for `url`. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const target = new URL(url);
  const proxy = new URL(t.berth.appsUrl!);
  return new Promise((resolve, reject) => {
    http.get({ host: proxy.hostname, port: proxy.port, path: target.pathname + target.search, headers: { Host: target.host, ...headers } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    }).on('error', reject);
  });
}

describe('wildcard-subdomain apps', () => {
  it('sends the browser to <route>.<domain> and serves the app only there', async () => {
    const started = await alice.client.call('POST', '/session/wild-sess/start-service', { body: { app: 'jupyter' } });
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=jupyter`)).body);
    const authUrl = new URL(added.url);
    expect(authUrl.hostname).toMatch(/^[0-9a-f]{24}\.apps\.example\.test$/);
    const auth = await get(added.url);
    expect(auth.status).toBe(302);
    const location = new URL(auth.headers.location!);
    expect(location.hostname).toBe(authUrl.hostname);
    const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
    expect((await get(`${location.origin}${location.pathname}api/status`, { Cookie: cookie })).status).toBe(200);
    // The same path on the plain proxy address, or on another app's subdomain, is not served.
    expect((await get(`${started.wsproxy_addr}${location.pathname}api/status`, { Cookie: cookie })).status).toBe(404);
    expect((await get(`http://${'0'.repeat(24)}.apps.example.test${location.pathname}api/status`, { Cookie: cookie })).status).toBe(404);
  });
});
