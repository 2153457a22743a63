/** In-session apps through the app proxy (CONTRACT §11): Jupyter in a real sandbox, tokens, cookies, errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import WebSocket from 'ws';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { connectStream, expectTtydRuns } from '../helpers/ws';
import { appProxySecret, cookieName, issueToken, signCookie } from '../../server/apps/tokens';
import { get } from '../helpers/poll';
import { listenersOf } from '../../server/metrics/listeners';
import { metricsOf } from '../../server/metrics/registry';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let sessionId: string;
const name = 'apps-sess';
const other = 'apps-other';

beforeAll(async () => {
  t = await startTestBerth({}, { roles: ['manager', 'apps'] });
  alice = await t.createUser();
  bob = await t.createUser();
  sessionId = (await alice.client.call('POST', '/session', { body: { name, image: 'python' } })).sessionId;
  await alice.client.call('POST', '/session', { body: { name: other, image: 'python' } });
}, 120_000);
afterAll(() => t?.stop());

/** start-service → add → auth: the cookie and the app's address. */
async function openApp(sessionName = name, sid = sessionId) {
  const started = await alice.client.call('POST', `/session/${sessionName}/start-service`, { body: { app: 'jupyter' } });
  const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sid}/add?app=jupyter`)).body);
  const auth = await get(added.url);
  const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
  return { started, added, auth, cookie, base: auth.headers.location! };
}

describe('apps', () => {
  it('lists the session\'s apps', async () => {
    const apps = await alice.client.call('GET', `/stream/session/${name}/apps`);
    expect(apps).toContainEqual(expect.objectContaining({ name: 'jupyter', protocol: 'http', ports: [8080] }));
  });

  it('every session offers the ttyd web terminal (CONTRACT §11.4): listed, served through the proxy, a shell over its WebSocket', async () => {
    const shell = (await alice.client.call('POST', '/session', { body: { name: 'apps-ttyd', image: 'shell' } }));
    expect(shell.servicePorts).toContainEqual(expect.objectContaining({ name: 'ttyd', protocol: 'http', ports: [7681] }));
    expect(await alice.client.call('GET', `/stream/session/${name}/apps`)).toContainEqual(expect.objectContaining({ name: 'ttyd', protocol: 'http', ports: [7681] }));
    const started = await alice.client.call('POST', '/session/apps-ttyd/start-service', { body: { app: 'ttyd' } });
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${shell.sessionId}/add?app=ttyd`)).body);
    const auth = await get(added.url);
    const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
    const base = auth.headers.location!;
    const page = await get(base, { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(JSON.parse((await get(`${base}token`, { Cookie: cookie })).body)).toEqual({ token: '' });
    // The page loads xterm.js from the session itself, nothing from another origin.
    expect(page.body).not.toMatch(/https?:\/\//);
    const script = await get(`${base}xterm.js`, { Cookie: cookie });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');
    expect(script.body).toContain('Terminal');
    expect((await get(`${base}xterm.css`, { Cookie: cookie })).body).toContain('.xterm');
    const ws = await expectTtydRuns(base, cookie);
    expect(ws.protocol).toBe('tty');
    ws.close();
    await alice.client.call('DELETE', '/session/apps-ttyd');
  });

  it('config.preopen_ports are listed as preopen service ports, and start-service routes the proxy to the user\'s server on one', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const preopen = { name: String(port), protocol: 'preopen', ports: [port] };
    const created = await alice.client.call('POST', '/session', { body: { name: 'apps-preopen', image: 'shell', config: { preopen_ports: [port] } } });
    expect(created.servicePorts).toContainEqual(expect.objectContaining(preopen));
    expect(await alice.client.call('GET', '/stream/session/apps-preopen/apps')).toContainEqual(expect.objectContaining(preopen));
    const again = await alice.client.call('POST', '/session', { body: { name: 'apps-preopen', image: 'shell' } });
    expect(again).toMatchObject({ created: false, servicePorts: expect.arrayContaining([expect.objectContaining(preopen)]) });
    await alice.client.call('POST', '/session/apps-preopen', { body: { mode: 'query', runId: null, code: `nohup python3 -m http.server ${port} --bind 127.0.0.1 >/dev/null 2>&1 &` } });
    const started = await alice.client.call('POST', '/session/apps-preopen/start-service', { body: { app: String(port) } });
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${created.sessionId}/add?app=${port}`)).body);
    const auth = await get(added.url);
    const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
    const deadline = Date.now() + 15_000;
    let answer = await get(auth.headers.location!, { Cookie: cookie });
    while (answer.status === 502 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      answer = await get(auth.headers.location!, { Cookie: cookie });
    }
    expect(String(answer.headers.server)).toContain('SimpleHTTP');
    await alice.client.call('DELETE', '/session/apps-preopen');
  });

  it('start-service answers a token and the app proxy address; the token buys a cookie and Jupyter answers through it', async () => {
    const { started, added, auth, cookie, base } = await openApp();
    expect(started.wsproxy_addr).toBe(t.berth.appsUrl);
    expect(typeof started.token).toBe('string');
    expect(added).toMatchObject({ code: 200, url: expect.stringContaining('/v2/proxy/auth?token=') });
    expect(auth.status).toBe(302);
    expect(String(auth.headers['set-cookie'])).toMatch(/HttpOnly/);
    expect(String(auth.headers['set-cookie'])).toMatch(/SameSite=Lax/);
    const status = await get(`${base}api/status`, { Cookie: cookie });
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toHaveProperty('started');
  });

  it('forwards admitted app requests on the pass-through path, counted in berth_app_proxy_requests_total', async () => {
    const { cookie, base } = await openApp();
    const server = listenersOf(t.app).get('apps') as http.Server;
    let passed = 0;
    const count = () => passed++;
    server.on('proxied', count);
    const counted = async () => (await metricsOf(t.app).appProxyRequests.get()).values.find((v) => v.labels.kind === 'app')?.value ?? 0;
    const before = await counted();
    for (let i = 0; i < 3; i++) expect((await get(`${base}api/status`, { Cookie: cookie })).status).toBe(200);
    expect((await get(`${base}api/status`)).status).toBe(401); // a refusal: node:http's path answers it
    server.off('proxied', count);
    expect(passed).toBe(3);
    expect(await counted()).toBe(before + 4);
  });

  it('answers a request target that is no URL with a 400, as a request and as an upgrade, and goes on serving', async () => {
    const port = Number(new URL(t.berth.appsUrl!).port);
    const raw = (text: string) => new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
      let got = '';
      socket.setEncoding('latin1');
      socket.on('data', (c: string) => (got += c));
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
    for (const target of ['//[/app/x', 'http://[/app/x']) {
      expect(await raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400 [^]*invalid-api-params/);
      expect(await raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400 [^]*invalid-api-params/);
    }
    expect((await get(`${t.berth.appsUrl}/health`)).status).toBe(200);
  });

  it('answers a request head over 16 KiB with a 431 problem of its own, and goes on serving', async () => {
    const res = await get(`${t.berth.appsUrl}/app/${'a'.repeat(24)}/?pad=${'x'.repeat(17_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers.server).toBe('Berth');
    expect(JSON.parse(res.body).type).toBe('https://errors.berth.dev/request-header-fields-too-large');
    expect((await get(`${t.berth.appsUrl}/health`)).status).toBe(200);
  });

  it('refuses a replayed token, a token for another session and a request without the cookie', async () => {
    const started = await alice.client.call('POST', `/session/${name}/start-service`, { body: { app: 'jupyter' } });
    const otherId = (await alice.client.call('GET', `/session/${other}`)).sessionId;
    expect((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${otherId}/add?app=jupyter`)).status).toBe(401);
    const added = JSON.parse((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=jupyter`)).body);
    const first = await get(added.url);
    expect(first.status).toBe(302);
    expect((await get(added.url)).status).toBe(401);
    expect((await get(`${first.headers.location}api/status`)).status).toBe(401);
    expect((await get(`${first.headers.location}api/status`, { Cookie: 'berth_app_x=forged' })).status).toBe(401);
  });

  it('never forwards the dashboard\'s cookies, its own cookie or Authorization to the app', async () => {
    // An app that echoes what it receives, published as a route of the session.
    const echo = http.createServer((req, res) => res.end(JSON.stringify(req.headers)));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    const port = (echo.address() as { port: number }).port;
    const kernel = await t.app.db.selectFrom('kernels').select('id').where('session_id', '=', sessionId).executeTakeFirstOrThrow();
    const route = await t.app.db.insertInto('app_routes').values({ id: 'e'.repeat(24), session_id: sessionId, kernel_id: kernel.id, app: 'echo', host_port: port, user_uuid: alice.uuid }).returningAll().executeTakeFirstOrThrow();
    const token = await issueToken(t.app, route, alice.uuid);
    const auth = await get(`${t.berth.appsUrl}/v2/proxy/auth?token=${token}&session_id=${sessionId}&app=echo`);
    const cookie = String(auth.headers['set-cookie']![0]).split(';')[0];
    const seen = JSON.parse((await get(`${auth.headers.location}x`, { Cookie: `${cookie}; next-auth.session-token=dash; __Secure-next-auth.csrf-token=c; app_pref=keep`, Authorization: 'Svc leaked' })).body);
    expect(seen.cookie).toBe('app_pref=keep');
    expect(seen.authorization).toBeUndefined();
    echo.close();
    await t.app.db.deleteFrom('app_routes').where('id', '=', route.id).execute();
  });

  it('refuses an app cookie of another user', async () => {
    const { base } = await openApp();
    const routeId = /\/app\/([0-9a-f]+)\//.exec(base)![1];
    const forged = `${cookieName(routeId)}=${signCookie(appProxySecret(t.app), routeId, bob.uuid)}`;
    expect((await get(`${base}api/status`, { Cookie: forged })).status).toBe(401);
  });

  it('serves Jupyter\'s kernel WebSocket through the proxy', async () => {
    const { cookie, base } = await openApp();
    const xsrf = await get(`${base}tree`, { Cookie: cookie });
    const jar = [cookie, ...((xsrf.headers['set-cookie'] as string[] | undefined) ?? []).map((c) => c.split(';')[0])].join('; ');
    const token = /_xsrf=([^;]+)/.exec(jar)?.[1] ?? '';
    const created = await new Promise<any>((resolve, reject) => {
      const url = new URL(`${base}api/kernels`);
      const req = http.request(url, { method: 'POST', headers: { Cookie: jar, 'X-XSRFToken': token, 'Content-Type': 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(body)) : reject(new Error(`${res.statusCode} ${body}`))));
      });
      req.end('{}');
    });
    const ws = new WebSocket(`${base.replace('http', 'ws')}api/kernels/${created.id}/channels`, { headers: { Cookie: jar } });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const msgId = 'exec-1';
    ws.send(JSON.stringify({ header: { msg_id: msgId, msg_type: 'execute_request', username: '', session: 's1', version: '5.3' }, parent_header: {}, metadata: {}, content: { code: 'print(6*7)', silent: false, store_history: false, user_expressions: {}, allow_stdin: false }, channel: 'shell' }));
    const printed = await new Promise<string>((resolve) => {
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString());
        if (msg.msg_type === 'stream' && msg.parent_header?.msg_id === msgId) resolve(msg.content.text);
      });
    });
    expect(printed).toBe('42\n');
    ws.close();
  });

  it('answers 502 for an app that died, and keeps serving others', async () => {
    const { cookie, base } = await openApp(other, (await alice.client.call('GET', `/session/${other}`)).sessionId);
    await alice.client.call('POST', `/session/${other}`, { body: { mode: 'query', runId: null, code: 'import subprocess\nsubprocess.run(["pkill", "-f", "notebook"])' } });
    await new Promise((r) => setTimeout(r, 500));
    const dead = await get(`${base}api/status`, { Cookie: cookie });
    expect(dead.status).toBe(502);
    const alive = await openApp();
    expect((await get(`${alive.base}api/status`, { Cookie: alive.cookie })).status).toBe(200);
  });

  it('rejects unknown apps, bad ports and bad envs, and another user\'s session', async () => {
    expect((await alice.client.request('POST', `/session/${name}/start-service`, { body: { app: 'nope' } })).status).toBe(404);
    expect((await alice.client.request('POST', `/session/${name}/start-service`, { body: { app: 'jupyter', port: 9999 } })).status).toBe(400);
    expect((await alice.client.request('POST', `/session/${name}/start-service`, { body: { app: 'jupyter', envs: 'not json' } })).status).toBe(400);
    expect((await bob.client.request('POST', `/session/${name}/start-service`, { body: { app: 'jupyter' } })).status).toBe(404);
  });

  it('relays raw bytes to the app over /httpproxy (wsproxy v1)', async () => {
    const relay = await connectStream(t.url, alice, `/stream/session/${name}/httpproxy`, { app: 'jupyter' });
    relay.ws.send(Buffer.from('GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    const answer = await relay.next((f) => Buffer.isBuffer(f) && f.toString().startsWith('HTTP/1.1'));
    expect(answer.toString()).toMatch(/^HTTP\/1\.1 (404|302)/);
    relay.ws.close();
    await expect(connectStream(t.url, bob, `/stream/session/${name}/httpproxy`, { app: 'jupyter' })).rejects.toMatchObject({ status: 404 });
  });

  it('shutdown-service stops the app and its address goes away', async () => {
    const { cookie, base } = await openApp();
    expect(await alice.client.call('POST', `/session/${name}/shutdown-service`, { body: { service_name: 'jupyter' } })).toEqual({});
    await new Promise((r) => setTimeout(r, 2500));
    expect((await get(`${base}api/status`, { Cookie: cookie })).status).toBe(404);
  });

  it('reports the wsproxy version of a scaling group', async () => {
    expect(await alice.client.call('GET', '/scaling-groups/default/wsproxy-version', { query: { group: 'default' } })).toEqual({ wsproxy_version: 'v2' });
    expect((await alice.client.request('GET', '/scaling-groups/nope/wsproxy-version', { query: { group: 'default' } })).status).toBe(404);
  });
});
