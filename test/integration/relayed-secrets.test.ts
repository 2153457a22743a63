/**
 * Requests the dashboard relays for a browser carry the relay mark (server/http/relayed.ts); the manager answers
 * them without any secret, however the request is written. Signed API clients (no mark) keep getting what they
 * asked for. The relay itself (marking, path normalisation) is tested through the built dashboard in
 * test/e2e/relay-keys.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { openEventStream } from '../helpers/sse';
import { RELAYED_HEADER } from '../../server/http/relayed';

let t: TestBerth;
let user: TestUser;
const MARK = { [RELAYED_HEADER]: '1' };

beforeAll(async () => {
  t = await startTestBerth({ allowSignup: true });
  user = await t.createUser();
});
afterAll(() => t?.stop());

/** The answer's text must name neither key of the admin nor of the user. */
function expectNoKeys(text: string) {
  for (const key of [t.adminCreds.accessKey, t.adminCreds.secretKey, user.accessKey, user.secretKey]) expect(text).not.toContain(key);
}

const relayedGql = (body: unknown, path = '/admin/gql') => t.admin.request('POST', path, { body, headers: MARK });

describe('GraphQL relayed for a browser', () => {
  const refused = [
    ['plain fields', { query: '{ keypair { access_key secret_key } }' }],
    ['an alias', { query: '{ keypair { mine: secret_key } }' }],
    ['an aliased root field', { query: '{ k: keypair { id } }' }],
    ['a named fragment', { query: 'query { keypair { ...K } } fragment K on KeyPair { is_active secret_key }' }],
    ['an inline fragment', { query: '{ keypairs { ... on KeyPair { secret_key } } }' }],
    ['a field behind a variable-driven directive', { query: 'query($show: Boolean!) { keypair { secret_key @include(if: $show) } }', variables: { show: false } }],
    ['variables as JSON text', { query: 'query($email: String) { user(email: $email) { main_access_key } }', variables: JSON.stringify({ email: 'x@example.com' }) }],
    ['a second operation of the document', { query: 'query A { user { email } } query B { keypair_list { items { secret_key } } }', operationName: 'A' }],
    ['a session owner\'s access key', { query: '{ compute_session_list { items { access_key } } }' }],
    ['a registry password', { query: '{ container_registries { password } }' }],
    ['a scaling group token', { query: '{ scaling_groups { wsproxy_api_token } }' }],
    ['a mutation answer', { query: 'mutation($u: String!) { create_keypair(user_id: $u, props: { is_active: true, is_admin: false }) { ok keypair { secret_key } } }', variables: { u: 'nobody' } }],
  ] as const;

  it.each(refused)('refuses %s with 403 and no key in the answer', async (_, body) => {
    const res = await relayedGql(body);
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().type).toContain('generic-forbidden');
    expectNoKeys(res.text);
  });

  it('refuses a document relayed after the same text was answered unrelayed (parsed documents are kept by their text)', async () => {
    const body = { query: '{ keypair { access_key secret_key is_active } }' };
    const direct = await t.admin.request('POST', '/admin/gql', { body });
    expect(direct.status).toBe(200);
    expect(direct.json().data.keypair.secret_key).toEqual(expect.any(String));
    const relayed = await relayedGql(body);
    expect(relayed.status).toBe(403);
    expectNoKeys(relayed.text);
  });

  it('refuses the keys spelled with JSON escapes in the body', async () => {
    const rawBody = '{"query":"{ keypair { \\u0061ccess_key \\u0073ecret_key } }"}';
    const res = await t.admin.request('POST', '/admin/gql', { rawBody, headers: MARK });
    expect(res.status).toBe(403);
    expectNoKeys(res.text);
  });

  it.each(['/admin/gql', '//gql', '/admin/graphql', '//graphql'])('refuses on %s', async (path) => {
    const res = await relayedGql({ query: '{ keypairs { secret_key } }' }, path);
    expect(res.status).toBe(403);
    expectNoKeys(res.text);
  });

  it('runs nothing of a refused document: a refused mutation creates no keypair', async () => {
    const count = async () => (await t.app.db.selectFrom('keypairs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n;
    const before = await count();
    const res = await relayedGql({ query: `mutation { create_keypair(user_id: "${user.email}", props: { is_active: true, is_admin: false }) { ok keypair { access_key } } }` });
    expect(res.status).toBe(403);
    expect(await count()).toEqual(before);
  });

  it('answers documents without secret fields as usual', async () => {
    const res = await relayedGql({ query: '{ user { email } keypair { is_active rate_limit } }' });
    expect(res.status).toBe(200);
    expect(res.json().data).toEqual({ user: { email: t.adminCreds.email }, keypair: { is_active: true, rate_limit: expect.anything() } });
  });

  it('still hands signed API clients (no mark) their keys', async () => {
    const res = await t.admin.request('POST', '/admin/gql', { body: { query: '{ keypair { access_key secret_key } }' } });
    expect(res.json().data.keypair).toEqual({ access_key: t.adminCreds.accessKey, secret_key: t.adminCreds.secretKey });
  });
});

describe('REST answers relayed for a browser', () => {
  it('login answers without the keypair', async () => {
    const body = { type: 'keypair', domain: 'default', username: user.email, password: user.password };
    const relayed = await t.anonymous.request('POST', '/auth/authorize', { body, headers: MARK });
    expect(relayed.status).toBe(200);
    expect(relayed.json()).toEqual({ data: { role: 'user', status: 'active' } });
    expectNoKeys(relayed.text);
    // The dashboard's own sign-in (server-side, unmarked) still gets the keys.
    expect((await t.anonymous.request('POST', '/auth/authorize', { body })).json().data.secret_key).toBe(user.secretKey);
  });

  it('login with a signed request (the relay signs everything) answers without keys too', async () => {
    const body = { type: 'keypair', domain: 'default', username: 'admin', password: ADMIN_PASSWORD };
    const relayed = await user.client.request('POST', '/auth/authorize', { body, headers: MARK });
    expect(relayed.status).toBe(200);
    expectNoKeys(relayed.text);
  });

  it('signup answers without the new keypair', async () => {
    const email = `relayed-${Date.now()}@example.com`;
    const res = await t.anonymous.request('POST', '/auth/signup', { body: { domain: 'default', email, password: 'signup-password-1' }, headers: MARK });
    expect(res.status).toBe(200);
    const created = await t.app.db.selectFrom('keypairs').innerJoin('users', 'users.uuid', 'keypairs.user_id').select(['access_key', 'secret_key']).where('users.email', '=', email).executeTakeFirstOrThrow();
    expect(res.text).not.toContain(created.access_key);
    expect(res.text).not.toContain(created.secret_key);
    expect(res.text).not.toMatch(/access_key|secret_key/);
  });

  it('generating an SSH keypair answers with the public key only', async () => {
    const res = await user.client.request('PATCH', '/auth/ssh-keypair', { headers: MARK });
    expect(res.status).toBe(200);
    const answer = res.json();
    expect(answer.ssh_public_key).toMatch(/^ssh-ed25519 /);
    expect(answer).not.toHaveProperty('ssh_private_key');
    expect(res.text).not.toContain('PRIVATE KEY');
    const stored = await t.app.db.selectFrom('keypairs').select('ssh_private_key').where('access_key', '=', user.accessKey).executeTakeFirstOrThrow();
    expect(stored.ssh_private_key).toContain('PRIVATE KEY');
    // Unmarked (the dashboard's /api/ssh-keypair handler, the CLI): the private key, once.
    expect((await user.client.call('PATCH', '/auth/ssh-keypair')).ssh_private_key).toContain('PRIVATE KEY');
  });

  it('uploading an SSH keypair does not echo the private key', async () => {
    const pair = await user.client.call('PATCH', '/auth/ssh-keypair');
    const res = await user.client.request('POST', '/auth/ssh-keypair', { body: { pubkey: pair.ssh_public_key, privkey: pair.ssh_private_key }, headers: MARK });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ssh_public_key: pair.ssh_public_key });
  });

  it('events carry no owner access key', async () => {
    const stream = await openEventStream(t.url, t.adminCreds, '/events/session', {}, MARK);
    const plain = await openEventStream(t.url, t.adminCreds, '/events/session');
    try {
      const group = await t.app.db.selectFrom('groups').select('id').where('name', '=', 'default').executeTakeFirstOrThrow();
      const payload = { sessionId: '00000000-0000-0000-0000-0000000000aa', sessionName: 'relayed-event', ownerAccessKey: t.adminCreds.accessKey, reason: '', exitCode: null };
      t.app.events.publishSession({ name: 'session_started', payload, domainName: 'default', groupId: group.id });
      const relayed = await stream.next((e) => e.data?.sessionName === 'relayed-event');
      expect(relayed.data).toEqual({ sessionId: payload.sessionId, sessionName: 'relayed-event', reason: '', exitCode: null });
      expect((await plain.next((e) => e.data?.sessionName === 'relayed-event')).data.ownerAccessKey).toBe(t.adminCreds.accessKey);
    } finally {
      stream.close();
      plain.close();
    }
  });
});
