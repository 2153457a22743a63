/**
 * The dashboard's relay hands no key to browser JavaScript, however a script on the dashboard's origin writes its
 * request: the two bypasses of the text filter that was here before (JSON escapes in a GraphQL body, a
 * percent-encoded path), GraphQL aliases, fragments, variables and several operations, `%2F`, double encoding and
 * dot segments in the path, and every REST answer that can hold a key (login, signup, keypair creation, SSH
 * keypair). Requests are sent as a page's script would, with the session cookie of a real sign-in, over raw HTTP
 * so the path reaches the dashboard exactly as written. The dashboard's own pages that need such things keep
 * working through their server-side handlers.
 *
 * Needs the built dashboard (`npm run build`); runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Berth } from '../../server/start';
import { sessionCookie, startDashboard, type Dashboard } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-relay-password-123';

let dashboard: Dashboard;
let berth: Berth;
let webUrl: string;
let admin: { email: string; accessKey: string; secretKey: string };
let cookie: string;

interface Answer {
  status: number;
  type: string;
  body: string;
}

/** One request as a page's script sends it: same origin, the session cookie, the path exactly as written. */
function send(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Answer> {
  const url = new URL(webUrl);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { Cookie: cookie, Origin: webUrl, 'Content-Type': 'application/json', ...(payload ? { 'Content-Length': Buffer.byteLength(payload) } : {}), ...extra },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** No key of any account the test knows, in any spelling a script could read. */
async function expectNoKeys(answer: Answer) {
  const keys = await berth.app.db.selectFrom('keypairs').select(['access_key', 'secret_key', 'ssh_private_key']).execute();
  for (const key of keys) {
    expect(answer.body).not.toContain(key.access_key);
    expect(answer.body).not.toContain(key.secret_key);
  }
  expect(answer.body).not.toContain('PRIVATE KEY');
}

beforeAll(async () => {
  dashboard = await startDashboard('relay', ADMIN_PASSWORD, { allowSignup: true });
  ({ berth, webUrl } = dashboard);
  admin = berth.bootstrap.credentials!;
  cookie = await sessionCookie(webUrl, admin.email, ADMIN_PASSWORD);
});

afterAll(async () => {
  await dashboard?.stop();
});

describe('GraphQL through the relay', () => {
  it('refuses the JSON-escape bypass: \\u0061ccess_key \\u0073ecret_key', async () => {
    const answer = await send('POST', '/api/manager/admin/gql', '{"query":"{ keypair { \\u0061ccess_key \\u0073ecret_key } }"}');
    expect(answer.status).toBe(403);
    expect(answer.type).toContain('application/problem+json');
    await expectNoKeys(answer);
  });

  it('refuses the percent-encoded path bypass: /admin/%67ql', async () => {
    const answer = await send('POST', '/api/manager/admin/%67ql', { query: '{ keypair { access_key secret_key } }' });
    expect(answer.status).toBe(403);
    await expectNoKeys(answer);
  });

  it.each([
    ['an alias', { query: '{ keypair { k: secret_key } }' }],
    ['a fragment', { query: '{ keypairs { ...K } } fragment K on KeyPair { secret_key }' }],
    ['variables', { query: 'query($all: Boolean!) { keypair_list { items { secret_key @include(if: $all) } } }', variables: { all: false } }],
    ['a batch of operations', { query: 'query Safe { user { email } } query Keys { keypairs { secret_key } }', operationName: 'Safe' }],
    ['keypair creation', { query: 'mutation { create_keypair(user_id: "admin", props: { is_active: true, is_admin: false }) { keypair { access_key secret_key } } }' }],
    ['every user\'s main access key', { query: '{ user_list { items { email main_access_key } } }' }],
  ])('refuses %s', async (_, body) => {
    const answer = await send('POST', '/api/manager/admin/gql', body);
    expect(answer.status).toBe(403);
    await expectNoKeys(answer);
  });

  it('answers a document without secret fields', async () => {
    const answer = await send('POST', '/api/manager/admin/gql', { query: '{ user { email role } }' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data.user).toEqual({ email: admin.email, role: 'superadmin' });
  });
});

describe('paths through the relay', () => {
  it.each([
    ['an encoded slash', '/api/manager/admin%2Fgql'],
    ['double encoding', '/api/manager/admin/%2567ql'],
    ['an encoded slash, double encoded', '/api/manager/admin%252Fgql'],
    ['a dot segment spelled as %2e%2e inside a segment', '/api/manager/folders/a%2F%2e%2e%2Fadmin/gql'],
    ['a malformed percent-encoding', '/api/manager/admin/%zzql'],
  ])('refuses %s with 400 before relaying', async (_, path) => {
    const answer = await send('POST', path, { query: '{ keypair { secret_key } }' });
    expect(answer.status).toBe(400);
    expect(answer.type).toContain('application/problem+json');
    await expectNoKeys(answer);
  });

  it('answers a request head over 16 KiB with 431 problem+json', async () => {
    const answer = await send('GET', `/api/manager/v2?pad=${'x'.repeat(17_000)}`);
    expect(answer.status).toBe(431);
    expect(answer.type).toBe('application/problem+json');
    expect(JSON.parse(answer.body).type).toBe('https://errors.berth.dev/request-header-fields-too-large');
  });

  it('relays a path whose dot segments the URL parser resolves, and still answers no key', async () => {
    const answer = await send('POST', '/api/manager/folders/%2e%2e/admin/gql', { query: '{ keypair { secret_key } }' });
    expect([400, 403]).toContain(answer.status);
    await expectNoKeys(answer);
  });

  it('answers the bare prefix with 404 problem+json, whatever path header the browser sends', async () => {
    for (const extra of [{}, { 'X-Berth-Relay-Path': '/admin/gql' }] as Record<string, string>[]) {
      const answer = await send('POST', '/api/manager', { query: '{ keypair { secret_key } }' }, extra);
      expect(answer.status).toBe(404);
      expect(answer.type).toContain('application/problem+json');
      await expectNoKeys(answer);
    }
  });

  it('relays the path of the URL, never one the browser names in a header', async () => {
    const answer = await send('GET', '/api/manager/v2', undefined, { 'X-Berth-Relay-Path': '/admin/gql' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toHaveProperty('version');
  });

  it('relays an encoded path parameter in its one spelling', async () => {
    await berth.app.db.deleteFrom('vfolders').where('name', '=', 'with space').execute();
    expect((await send('POST', '/api/manager/folders', { name: 'with space' })).status).toBe(200);
    const answer = await send('GET', '/api/manager/folders/with%20space');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).name).toBe('with space');
  });
});

describe('REST answers that can hold a key, through the relay', () => {
  it('login answers without the keypair', async () => {
    const answer = await send('POST', '/api/manager/auth/authorize', { type: 'keypair', domain: 'default', username: admin.email, password: ADMIN_PASSWORD });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ data: { role: 'superadmin', status: 'active' } });
    await expectNoKeys(answer);
  });

  it('signup answers without the new keypair', async () => {
    const answer = await send('POST', '/api/manager/auth/signup', { domain: 'default', email: 'relay-signup@example.com', password: 'relay-signup-1' });
    expect(answer.status).toBe(200);
    await expectNoKeys(answer);
  });

  it('generating and uploading an SSH keypair answer without the private key', async () => {
    const generated = await send('PATCH', '/api/manager/auth/ssh-keypair');
    expect(generated.status).toBe(200);
    expect(JSON.parse(generated.body).ssh_public_key).toMatch(/^ssh-ed25519 /);
    await expectNoKeys(generated);
    const stored = await berth.app.db.selectFrom('keypairs').select(['ssh_public_key', 'ssh_private_key']).where('access_key', '=', admin.accessKey).executeTakeFirstOrThrow();
    const uploaded = await send('POST', '/api/manager/auth/ssh-keypair', { pubkey: stored.ssh_public_key, privkey: stored.ssh_private_key });
    expect(uploaded.status).toBe(200);
    await expectNoKeys(uploaded);
  });

  it('events arrive without the owner access key', async () => {
    const url = new URL(webUrl);
    const { id: groupId } = await berth.app.db.selectFrom('groups').select('id').where('name', '=', 'default').executeTakeFirstOrThrow();
    const received = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, path: '/api/manager/events/session', headers: { Cookie: cookie, Accept: 'text/event-stream' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('relay-event')) {
            req.destroy();
            resolve(text);
          }
        });
        res.once('error', () => undefined);
        // The stream is open: an event about one of the admin's sessions, repeated until it has come through.
        const payload = { sessionId: '00000000-0000-0000-0000-0000000000bb', sessionName: 'relay-event', ownerAccessKey: admin.accessKey, reason: '', exitCode: null };
        const publish = setInterval(() => berth.app.events.publishSession({ name: 'session_started', payload, domainName: 'default', groupId }), 100);
        res.once('close', () => clearInterval(publish));
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });
    expect(received).toContain('"sessionName":"relay-event"');
    expect(received).not.toContain(admin.accessKey);
    expect(received).not.toContain('ownerAccessKey');
  });
});

describe("the dashboard's own handlers beside the relay", () => {
  it('/api/ssh-keypair hands the new private key to the page, once, and stores the pair', async () => {
    const answer = await send('PATCH', '/api/ssh-keypair');
    expect(answer.status).toBe(200);
    const pair = JSON.parse(answer.body);
    expect(pair.ssh_private_key).toContain('BEGIN OPENSSH PRIVATE KEY');
    const stored = await berth.app.db.selectFrom('keypairs').select('ssh_public_key').where('access_key', '=', admin.accessKey).executeTakeFirstOrThrow();
    expect(stored.ssh_public_key).toBe(pair.ssh_public_key);
    expect(answer.body).not.toContain(admin.secretKey);
    expect(answer.body).not.toContain(admin.accessKey);
  });

  it('/api/ssh-keypair refuses a cross-origin request', async () => {
    const answer = await send('PATCH', '/api/ssh-keypair', undefined, { Origin: 'http://attacker.example' });
    expect(answer.status).toBe(403);
  });

  it('/api/admin/keypairs lists keypairs by masked id, never the access key', async () => {
    const answer = await send('GET', `/api/admin/keypairs?email=${encodeURIComponent(admin.email)}`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).keypairs.length).toBeGreaterThan(0);
    await expectNoKeys(answer);
  });
});
