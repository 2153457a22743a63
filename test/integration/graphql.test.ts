/** GraphQL (CONTRACT §16) at /admin/gql, /admin/graphql and the // aliases. One behaviour per test. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { BerthClient } from '../../server/client/client';

let t: TestBerth;
let plain: TestUser;
let domainAdmin: TestUser;

beforeAll(async () => {
  t = await startTestBerth();
  plain = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  await t.createDomain('other');
});
afterAll(() => t?.stop());

interface GqlAnswer {
  data?: any;
  errors?: { message: string; path?: (string | number)[]; extensions: { code: string } }[];
}

async function gql(client: BerthClient, query: string, variables?: Record<string, unknown>, path = '/admin/gql'): Promise<GqlAnswer> {
  const res = await client.request('POST', path, { body: { query, variables } });
  expect(res.status).toBe(200);
  return res.json();
}

/** Runs a query that must succeed and returns its data. */
async function ok(client: BerthClient, query: string, variables?: Record<string, unknown>): Promise<any> {
  const answer = await gql(client, query, variables);
  expect(answer.errors).toBeUndefined();
  return answer.data;
}

function login(username: string, password: string) {
  return t.anonymous.request('POST', '/auth/authorize', { body: { type: 'keypair', domain: 'default', username, password } });
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

const CREATE_USER = `mutation($email: String!, $props: UserInput!) {
  create_user(email: $email, props: $props) { ok msg user { uuid email username domain_name role status full_name groups { name } } }
}`;

async function createUserVia(client: BerthClient, props: Record<string, unknown> = {}) {
  const email = `${unique('gql')}@example.com`;
  const answer = await gql(client, CREATE_USER, {
    email,
    props: { username: email.split('@')[0], password: 'first-password-1', need_password_change: false, domain_name: 'default', ...props },
  });
  return { email, answer };
}

describe('routes', () => {
  it('answers at /admin/gql and //gql with {data}', async () => {
    for (const path of ['/admin/gql', '//gql']) {
      const res = await t.admin.request('POST', path, { body: { query: '{ domain { name } }' } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ data: { domain: { name: 'default' } } });
    }
  });

  it('answers at /admin/graphql and //graphql with the bare data', async () => {
    for (const path of ['/admin/graphql', '//graphql']) {
      const res = await t.admin.request('POST', path, { body: { query: '{ domain { name } }' } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ domain: { name: 'default' } });
    }
  });

  it('accepts operation_name and operationName to pick the operation', async () => {
    const query = 'query A { domain { name } } query B { user { email } }';
    expect((await gql(t.admin, query)).errors?.[0].message).toContain('operation name');
    const snake = await t.admin.call('POST', '/admin/gql', { body: { query, operation_name: 'B' } });
    const camel = await t.admin.call('POST', '/admin/gql', { body: { query, operationName: 'A' } });
    expect(snake.data).toEqual({ user: { email: t.adminCreds.email } });
    expect(camel.data).toEqual({ domain: { name: 'default' } });
  });

  it('reports errors in the errors array with 200 on /admin/gql', async () => {
    const answer = await gql(t.admin, '{ domain { no_such_field } }');
    expect(answer.data).toBeUndefined();
    expect(answer.errors?.[0].message).toContain('no_such_field');
  });

  it('turns any error on the legacy path into 400 graphql-error with the errors as data', async () => {
    const res = await t.admin.request('POST', '/admin/graphql', { body: { query: '{ domain { name ' } });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    const body = res.json();
    expect(body.type).toBe('https://errors.berth.dev/graphql-error');
    expect(Array.isArray(body.data)).toBe(true);
    expect(body.data[0].message).toMatch(/Syntax Error/);
  });

  it('refuses a body without query with 400 invalid-api-params', async () => {
    const res = await t.admin.request('POST', '/admin/gql', { body: { variables: {} } });
    expect(res.status).toBe(400);
    expect(res.json().type).toContain('invalid-api-params');
  });

  it('answers wrongly typed variables with a GraphQL error, not a 5xx', async () => {
    const answer = await gql(t.admin, 'query($id: UUID!) { group(id: $id) { name } }', { id: 'not-a-uuid' });
    expect(answer.errors?.[0].message).toContain('Invalid UUID');
  });
});

describe('users', () => {
  it('create_user makes an account that can log in with its password', async () => {
    const { email, answer } = await createUserVia(t.admin, { full_name: 'New Person' });
    expect(answer.errors).toBeUndefined();
    expect(answer.data.create_user).toMatchObject({ ok: true, user: { email, domain_name: 'default', role: 'user', status: 'active', full_name: 'New Person' } });
    expect(answer.data.create_user.user.groups).toEqual([{ name: 'default' }]);
    const res = await login(email, 'first-password-1');
    expect(res.status).toBe(200);
    expect(res.json().data).toMatchObject({ role: 'user', status: 'active' });
  });

  it('modify_user changes the password and the profile', async () => {
    const { email } = await createUserVia(t.admin);
    const data = await ok(t.admin, 'mutation($email: String!, $props: ModifyUserInput!) { modify_user(email: $email, props: $props) { ok user { full_name description } } }', {
      email,
      props: { password: 'second-password-2', full_name: 'Renamed', description: 'changed' },
    });
    expect(data.modify_user).toEqual({ ok: true, user: { full_name: 'Renamed', description: 'changed' } });
    expect((await login(email, 'first-password-1')).status).toBe(401);
    expect((await login(email, 'second-password-2')).status).toBe(200);
  });

  it('delete_user makes login fail and deactivates the keypairs', async () => {
    const { email } = await createUserVia(t.admin);
    const creds = (await login(email, 'first-password-1')).json().data;
    const data = await ok(t.admin, 'mutation($email: String!) { delete_user(email: $email) { ok msg } }', { email });
    expect(data.delete_user.ok).toBe(true);
    expect((await login(email, 'first-password-1')).status).toBe(401);
    const client = new BerthClient({ endpoint: t.url, accessKey: creds.access_key, secretKey: creds.secret_key });
    expect((await client.request('GET', '/auth', { query: { echo: 'x' } })).status).toBe(401);
    client.close();
  });

  it('purge_user removes the account', async () => {
    const { email } = await createUserVia(t.admin);
    expect((await ok(t.admin, 'mutation($e: String!) { purge_user(email: $e) { ok } }', { e: email })).purge_user.ok).toBe(true);
    expect((await ok(t.admin, 'query($e: String) { user(email: $e) { email } }', { e: email })).user).toBeNull();
  });

  it('a duplicate email gives ok:false and an error', async () => {
    const { email } = await createUserVia(t.admin);
    const answer = await gql(t.admin, CREATE_USER, { email, props: { username: unique('dup'), password: 'x-password-1', need_password_change: false } });
    expect(answer.data.create_user).toMatchObject({ ok: false, user: null });
    expect(answer.data.create_user.msg).toMatch(/already exists/i);
    expect(answer.errors?.[0]).toMatchObject({ path: ['create_user'], extensions: { code: 'generic-bad-request' } });
  });

  it('an unknown domain gives an error', async () => {
    const { answer } = await createUserVia(t.admin, { domain_name: 'no-such-domain' });
    expect(answer.data.create_user.ok).toBe(false);
    expect(answer.errors?.[0].message).toContain('No such domain');
  });

  it('a plain user cannot list users', async () => {
    for (const query of ['{ users { email } }', '{ user_list(limit: 10, offset: 0) { total_count } }']) {
      const answer = await gql(plain.client, query);
      expect(answer.errors?.[0].extensions.code).toBe('insufficient-privilege');
    }
  });

  it('a plain user reads themselves but not another user', async () => {
    expect((await ok(plain.client, '{ user { email role } }')).user).toEqual({ email: plain.email, role: 'user' });
    const answer = await gql(plain.client, 'query($e: String) { user(email: $e) { email } }', { e: t.adminCreds.email });
    expect(answer.data.user).toBeNull();
    expect(answer.errors?.[0].extensions.code).toBe('generic-forbidden');
  });

  it('a domain admin cannot create users in another domain', async () => {
    const { answer } = await createUserVia(domainAdmin.client, { domain_name: 'other' });
    expect(answer.data.create_user).toBeNull();
    expect(answer.errors?.[0].extensions.code).toBe('generic-forbidden');
  });

  it('a domain admin cannot create a superadmin', async () => {
    const { answer } = await createUserVia(domainAdmin.client, { role: 'superadmin' });
    expect(answer.data.create_user).toBeNull();
    expect(answer.errors?.[0].extensions.code).toBe('insufficient-privilege');
  });

  it('a domain admin creates users in their own domain and lists only that domain', async () => {
    const { answer } = await createUserVia(domainAdmin.client);
    expect(answer.data.create_user.ok).toBe(true);
    const superadminView = await ok(t.admin, CREATE_USER, { email: `${unique('far')}@example.com`, props: { username: unique('far'), password: 'far-password-1', domain_name: 'other' } });
    expect(superadminView.create_user.ok).toBe(true);
    const listed = await ok(domainAdmin.client, '{ users { email domain_name } }');
    expect(listed.users.length).toBeGreaterThan(1);
    expect(listed.users.every((u: { domain_name: string }) => u.domain_name === 'default')).toBe(true);
    const refused = await gql(domainAdmin.client, '{ users(domain_name: "other") { email } }');
    expect(refused.errors?.[0].extensions.code).toBe('generic-forbidden');
  });

  it('a domain admin cannot modify a superadmin', async () => {
    const answer = await gql(domainAdmin.client, 'mutation($e: String!) { modify_user(email: $e, props: { full_name: "pwned" }) { ok } }', { e: t.adminCreds.email });
    expect(answer.data.modify_user).toBeNull();
    expect(answer.errors?.[0].extensions.code).toBe('insufficient-privilege');
  });
});

describe('keypairs', () => {
  const CREATE_KEYPAIR = `mutation($user: String!, $props: KeyPairInput!) {
    create_keypair(user_id: $user, props: $props) { ok msg keypair { access_key secret_key user_id is_active rate_limit } }
  }`;

  it('create_keypair returns a working access and secret key', async () => {
    const data = await ok(t.admin, CREATE_KEYPAIR, { user: plain.email, props: { is_active: true, is_admin: false, resource_policy: 'default', rate_limit: 500 } });
    const kp = data.create_keypair.keypair;
    expect(data.create_keypair.ok).toBe(true);
    expect(kp).toMatchObject({ user_id: plain.email, is_active: true, rate_limit: 500 });
    expect(kp.access_key).toMatch(/^AK[A-Z0-9]{18}$/);
    expect(kp.secret_key).toMatch(/^[A-Za-z0-9]{40}$/);
    const client = new BerthClient({ endpoint: t.url, accessKey: kp.access_key, secretKey: kp.secret_key });
    expect(await client.call('GET', '/auth', { query: { echo: 'hi' } })).toEqual({ authorized: 'yes', echo: 'hi' });
    client.close();
  });

  it('a keypair made inactive stops authenticating', async () => {
    const kp = (await ok(t.admin, CREATE_KEYPAIR, { user: plain.email, props: {} })).create_keypair.keypair;
    const client = new BerthClient({ endpoint: t.url, accessKey: kp.access_key, secretKey: kp.secret_key });
    expect((await client.request('GET', '/auth', { query: { echo: 'a' } })).status).toBe(200);
    const data = await ok(t.admin, 'mutation($ak: String!) { modify_keypair(access_key: $ak, props: { is_active: false }) { ok keypair { is_active } } }', { ak: kp.access_key });
    expect(data.modify_keypair).toEqual({ ok: true, keypair: { is_active: false } });
    expect((await client.request('GET', '/auth', { query: { echo: 'b' } })).status).toBe(401);
    client.close();
  });

  it('delete_keypair removes a keypair but never the main one', async () => {
    const kp = (await ok(t.admin, CREATE_KEYPAIR, { user: plain.email, props: {} })).create_keypair.keypair;
    const removed = await ok(t.admin, 'mutation($ak: String!) { delete_keypair(access_key: $ak) { ok } }', { ak: kp.access_key });
    expect(removed.delete_keypair.ok).toBe(true);
    const main = await gql(t.admin, 'mutation($ak: String!) { delete_keypair(access_key: $ak) { ok msg } }', { ak: plain.accessKey });
    expect(main.data.delete_keypair.ok).toBe(false);
  });

  it('secret_key is shown to the owner and superadmins only', async () => {
    const query = 'query($ak: String) { keypair(access_key: $ak) { access_key secret_key } }';
    expect((await ok(plain.client, query, { ak: plain.accessKey })).keypair.secret_key).toBe(plain.secretKey);
    expect((await ok(t.admin, query, { ak: plain.accessKey })).keypair.secret_key).toBe(plain.secretKey);
    expect((await ok(domainAdmin.client, query, { ak: plain.accessKey })).keypair).toEqual({ access_key: plain.accessKey, secret_key: null });
  });

  it('a plain user sees only their own keypairs', async () => {
    const mine = await ok(plain.client, '{ keypairs { user_id } }');
    expect(mine.keypairs.length).toBeGreaterThan(0);
    expect(mine.keypairs.every((k: { user_id: string }) => k.user_id === plain.email)).toBe(true);
    expect((await ok(plain.client, 'query($ak: String) { keypair(access_key: $ak) { access_key } }', { ak: t.adminCreds.accessKey })).keypair).toBeNull();
    const refused = await gql(plain.client, 'query($e: String) { keypairs(email: $e) { access_key } }', { e: t.adminCreds.email });
    expect(refused.errors?.[0].extensions.code).toBe('generic-forbidden');
  });
});

describe('domains and groups', () => {
  it('create, modify, delete and purge a domain', async () => {
    const name = unique('dom');
    const created = await ok(t.admin, 'mutation($n: String!) { create_domain(name: $n, props: { description: "d1", total_resource_slots: "{\\"cpu\\": 4, \\"mem\\": \\"2g\\"}" }) { ok domain { name description is_active total_resource_slots } } }', { n: name });
    expect(created.create_domain).toMatchObject({ ok: true, domain: { name, description: 'd1', is_active: true } });
    expect(JSON.parse(created.create_domain.domain.total_resource_slots)).toEqual({ cpu: '4', mem: String(2 * 1024 ** 3) });
    const modified = await ok(t.admin, 'mutation($n: String!) { modify_domain(name: $n, props: { description: "d2" }) { ok domain { description } } }', { n: name });
    expect(modified.modify_domain).toEqual({ ok: true, domain: { description: 'd2' } });
    expect((await ok(t.admin, 'mutation($n: String!) { delete_domain(name: $n) { ok } }', { n: name })).delete_domain.ok).toBe(true);
    expect((await ok(t.admin, 'query($n: String) { domain(name: $n) { is_active } }', { n: name })).domain).toEqual({ is_active: false });
    expect((await ok(t.admin, 'mutation($n: String!) { purge_domain(name: $n) { ok } }', { n: name })).purge_domain.ok).toBe(true);
    expect((await ok(t.admin, 'query($n: String) { domain(name: $n) { name } }', { n: name })).domain).toBeNull();
  });

  it('domain mutations need a superadmin', async () => {
    const answer = await gql(domainAdmin.client, 'mutation { create_domain(name: "nope", props: {}) { ok } }');
    expect(answer.data.create_domain).toBeNull();
    expect(answer.errors?.[0].extensions.code).toBe('insufficient-privilege');
  });

  it('create, modify (with members), delete and purge a group', async () => {
    const name = unique('proj');
    const created = await ok(t.admin, 'mutation($n: String!) { create_group(name: $n, props: { domain_name: "default", description: "p" }) { ok group { id name domain_name type is_active } } }', { n: name });
    const group = created.create_group.group;
    expect(group).toMatchObject({ name, domain_name: 'default', type: 'GENERAL', is_active: true });
    const modify = 'mutation($id: UUID!, $props: ModifyGroupInput!) { modify_group(gid: $id, props: $props) { ok group { description } } }';
    expect((await ok(t.admin, modify, { id: group.id, props: { description: 'q', user_update_mode: 'add', user_uuids: [plain.uuid] } })).modify_group).toEqual({ ok: true, group: { description: 'q' } });
    expect((await ok(plain.client, 'query($id: UUID!) { group(id: $id) { name } }', { id: group.id })).group).toEqual({ name });
    expect((await ok(t.admin, 'query($id: UUID) { user_list(group_id: $id) { total_count items { email } } }', { id: group.id })).user_list).toEqual({ total_count: 1, items: [{ email: plain.email }] });
    await ok(t.admin, modify, { id: group.id, props: { user_update_mode: 'remove', user_uuids: [plain.uuid] } });
    expect((await ok(plain.client, 'query($id: UUID!) { group(id: $id) { name } }', { id: group.id })).group).toBeNull();
    expect((await ok(t.admin, 'mutation($id: UUID!) { delete_group(gid: $id) { ok } }', { id: group.id })).delete_group.ok).toBe(true);
    expect((await ok(t.admin, 'query($id: UUID!) { group(id: $id) { is_active } }', { id: group.id })).group).toEqual({ is_active: false });
    expect((await ok(t.admin, 'mutation($id: UUID!) { purge_group(gid: $id) { ok } }', { id: group.id })).purge_group.ok).toBe(true);
    expect((await ok(t.admin, 'query($id: UUID!) { group(id: $id) { name } }', { id: group.id })).group).toBeNull();
  });

  it('a plain user lists only the groups they belong to', async () => {
    await ok(t.admin, 'mutation($n: String!) { create_group(name: $n, props: { domain_name: "default" }) { ok } }', { n: unique('hidden') });
    const mine = await ok(plain.client, '{ groups { name } }');
    expect(mine.groups).toEqual([{ name: 'default' }]);
  });

  it('a domain admin cannot create a group in another domain', async () => {
    const answer = await gql(domainAdmin.client, 'mutation { create_group(name: "x", props: { domain_name: "other" }) { ok } }');
    expect(answer.errors?.[0].extensions.code).toBe('generic-forbidden');
  });
});

describe('policies, presets, scaling groups, registries', () => {
  it('create, modify and delete a keypair resource policy', async () => {
    const name = unique('kp-policy');
    const created = await ok(t.admin, 'mutation($n: String!) { create_keypair_resource_policy(name: $n, props: { default_for_unspecified: "LIMITED", total_resource_slots: "{\\"cpu\\": 2}", max_concurrent_sessions: 3, max_containers_per_session: 1, idle_timeout: 600 }) { ok resource_policy { name default_for_unspecified max_concurrent_sessions idle_timeout total_resource_slots } } }', { n: name });
    expect(created.create_keypair_resource_policy).toMatchObject({ ok: true, resource_policy: { name, default_for_unspecified: 'LIMITED', max_concurrent_sessions: 3, idle_timeout: 600, total_resource_slots: '{"cpu":"2"}' } });
    const modified = await ok(t.admin, 'mutation($n: String!) { modify_keypair_resource_policy(name: $n, props: { max_concurrent_sessions: 5 }) { ok resource_policy { max_concurrent_sessions } } }', { n: name });
    expect(modified.modify_keypair_resource_policy).toEqual({ ok: true, resource_policy: { max_concurrent_sessions: 5 } });
    expect((await ok(t.admin, 'mutation($n: String!) { delete_keypair_resource_policy(name: $n) { ok } }', { n: name })).delete_keypair_resource_policy.ok).toBe(true);
    expect((await ok(t.admin, 'query($n: String) { keypair_resource_policy(name: $n) { name } }', { n: name })).keypair_resource_policy).toBeNull();
  });

  it('create, modify and delete user and project resource policies', async () => {
    for (const kind of ['user', 'project']) {
      const name = unique(`${kind}-policy`);
      const Kind = kind === 'user' ? 'User' : 'Project';
      const created = await ok(t.admin, `mutation($n: String!) { create_${kind}_resource_policy(name: $n, props: { max_vfolder_count: 7, max_quota_scope_size: 10737418240 }) { ok resource_policy { name max_vfolder_count max_quota_scope_size } } }`, { n: name });
      expect(created[`create_${kind}_resource_policy`]).toEqual({ ok: true, resource_policy: { name, max_vfolder_count: 7, max_quota_scope_size: 10737418240 } });
      const modified = await ok(t.admin, `mutation($n: String!, $p: Modify${Kind}ResourcePolicyInput!) { modify_${kind}_resource_policy(name: $n, props: $p) { ok resource_policy { max_vfolder_count } } }`, { n: name, p: { max_vfolder_count: 8 } });
      expect(modified[`modify_${kind}_resource_policy`]).toEqual({ ok: true, resource_policy: { max_vfolder_count: 8 } });
      expect((await ok(t.admin, `mutation($n: String!) { delete_${kind}_resource_policy(name: $n) { ok } }`, { n: name }))[`delete_${kind}_resource_policy`].ok).toBe(true);
    }
  });

  it('a policy in use cannot be deleted', async () => {
    const answer = await gql(t.admin, 'mutation { delete_keypair_resource_policy(name: "default") { ok msg } }');
    expect(answer.data.delete_keypair_resource_policy.ok).toBe(false);
    expect(answer.errors?.[0].message).toContain('still used');
  });

  it('policy mutations need a superadmin', async () => {
    const answer = await gql(domainAdmin.client, 'mutation { create_user_resource_policy(name: "x", props: {}) { ok } }');
    expect(answer.errors?.[0].extensions.code).toBe('insufficient-privilege');
  });

  it('create, modify and delete a resource preset', async () => {
    const name = unique('preset');
    const created = await ok(t.admin, 'mutation($n: String!) { create_resource_preset(name: $n, props: { resource_slots: "{\\"cpu\\": \\"2\\", \\"mem\\": \\"1g\\"}", shared_memory: "64m" }) { ok resource_preset { name resource_slots shared_memory scaling_group_name } } }', { n: name });
    expect(created.create_resource_preset).toEqual({
      ok: true,
      resource_preset: { name, resource_slots: JSON.stringify({ cpu: '2', mem: String(1024 ** 3) }), shared_memory: 64 * 1024 ** 2, scaling_group_name: null },
    });
    const modified = await ok(t.admin, 'mutation($n: String!) { modify_resource_preset(name: $n, props: { shared_memory: "128m" }) { ok resource_preset { shared_memory } } }', { n: name });
    expect(modified.modify_resource_preset).toEqual({ ok: true, resource_preset: { shared_memory: 128 * 1024 ** 2 } });
    const names = (await ok(plain.client, '{ resource_presets { name } }')).resource_presets.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['small', 'medium', 'large', name]));
    expect((await ok(t.admin, 'mutation($n: String) { delete_resource_preset(name: $n) { ok } }', { n: name })).delete_resource_preset.ok).toBe(true);
    expect((await ok(t.admin, 'query($n: String) { resource_preset(name: $n) { name } }', { n: name })).resource_preset).toBeNull();
  });

  it('create, modify, associate and delete a scaling group', async () => {
    const name = unique('sg');
    const created = await ok(t.admin, 'mutation($n: String!) { create_scaling_group(name: $n, props: { description: "s", scheduler: "drf" }) { ok scaling_group { name scheduler is_active is_public driver } } }', { n: name });
    expect(created.create_scaling_group).toEqual({ ok: true, scaling_group: { name, scheduler: 'drf', is_active: true, is_public: true, driver: 'static' } });
    const modified = await ok(t.admin, 'mutation($n: String!) { modify_scaling_group(name: $n, props: { scheduler: "lifo", is_public: false }) { ok scaling_group { scheduler is_public } } }', { n: name });
    expect(modified.modify_scaling_group).toEqual({ ok: true, scaling_group: { scheduler: 'lifo', is_public: false } });

    await ok(t.admin, 'mutation($n: String!) { associate_scaling_group_with_domain(domain: "default", scaling_group: $n) { ok } }', { n: name });
    await ok(t.admin, 'mutation($n: String!, $ak: String!) { associate_scaling_group_with_keypair(scaling_group: $n, access_key: $ak) { ok } }', { n: name, ak: plain.accessKey });
    const forDomain = await ok(t.admin, '{ scaling_groups_for_domain(domain: "default") { name } }');
    expect(forDomain.scaling_groups_for_domain.map((s: { name: string }) => s.name)).toContain(name);
    const forKeypair = await ok(plain.client, 'query($ak: String!) { scaling_groups_for_keypair(access_key: $ak) { name } }', { ak: plain.accessKey });
    expect(forKeypair.scaling_groups_for_keypair).toEqual([{ name }]);
    await ok(t.admin, 'mutation($n: String!) { disassociate_scaling_group_with_domain(domain: "default", scaling_group: $n) { ok } }', { n: name });
    const after = await ok(t.admin, '{ scaling_groups_for_domain(domain: "default") { name } }');
    expect(after.scaling_groups_for_domain.map((s: { name: string }) => s.name)).not.toContain(name);

    expect((await ok(t.admin, 'mutation($n: String!) { delete_scaling_group(name: $n) { ok } }', { n: name })).delete_scaling_group.ok).toBe(true);
    expect((await ok(t.admin, 'query($n: String) { scaling_group(name: $n) { name } }', { n: name })).scaling_group).toBeNull();
  });

  it('refuses an unknown scheduler with ok:false', async () => {
    const answer = await gql(t.admin, 'mutation { create_scaling_group(name: "bad-scheduler", props: { scheduler: "random" }) { ok msg } }');
    expect(answer.data.create_scaling_group.ok).toBe(false);
    expect(answer.errors?.[0].extensions.code).toBe('invalid-api-params');
  });

  it('create, modify and delete a container registry', async () => {
    const hostname = unique('registry.example.com');
    const created = await ok(t.admin, 'mutation($h: String!) { create_container_registry(hostname: $h, props: { url: "https://registry.example.com", type: "harbor2", project: ["a", "b"] }) { ok container_registry { hostname config { url type project ssl_verify } } } }', { h: hostname });
    expect(created.create_container_registry).toEqual({
      ok: true,
      container_registry: { hostname, config: { url: 'https://registry.example.com', type: 'harbor2', project: ['a', 'b'], ssl_verify: true } },
    });
    const modified = await ok(t.admin, 'mutation($h: String!) { modify_container_registry(hostname: $h, props: { project: ["b", "c"], ssl_verify: false }) { ok container_registry { config { project ssl_verify } } } }', { h: hostname });
    expect(modified.modify_container_registry.container_registry.config).toEqual({ project: ['b', 'c'], ssl_verify: false });
    expect((await ok(t.admin, 'mutation($h: String!) { delete_container_registry(hostname: $h) { ok } }', { h: hostname })).delete_container_registry.ok).toBe(true);
    expect((await ok(t.admin, '{ container_registries { hostname } }')).container_registries).not.toContainEqual({ hostname });
  });
});

describe('agents', () => {
  it('superadmins read agents; users read summaries of agents open to them', async () => {
    const full = await ok(t.admin, '{ agent_list(limit: 10, offset: 0) { total_count items { id status scaling_group available_slots } } }');
    expect(full.agent_list.total_count).toBeGreaterThan(0);
    expect(full.agent_list.items[0]).toMatchObject({ status: 'ALIVE', scaling_group: 'default' });
    expect(JSON.parse(full.agent_list.items[0].available_slots)).toHaveProperty('cpu');
    const summary = await ok(plain.client, '{ agent_summary_list(limit: 10, offset: 0) { total_count items { id status } } }');
    expect(summary.agent_summary_list.items.map((a: { id: string }) => a.id)).toEqual(full.agent_list.items.map((a: { id: string }) => a.id));
    const refused = await gql(plain.client, '{ agent_list(limit: 10, offset: 0) { total_count } }');
    expect(refused.errors?.[0].extensions.code).toBe('insufficient-privilege');
  });
});

describe("Backend.AI clients' queries and inputs", () => {
  it("answers the web UI's keypair list fields: id, concurrency_used and concurrency_limit", async () => {
    const user = await t.createUser();
    const query = `query($email: String, $is_active: Boolean) { keypairs(email: $email, is_active: $is_active) {
      id access_key is_active is_admin user_id created_at last_used concurrency_limit concurrency_used rate_limit num_queries resource_policy
    } }`;
    const before = (await ok(t.admin, query, { email: user.email, is_active: true })).keypairs;
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ id: user.accessKey, access_key: user.accessKey, concurrency_used: 0, concurrency_limit: 30, resource_policy: 'default' });
    const created = await user.client.call('POST', '/session', { body: { name: 'gql-concurrency', image: 'shell' } });
    try {
      const after = (await ok(user.client, 'query($ak: String) { keypair(access_key: $ak) { concurrency_used } }', { ak: user.accessKey })).keypair;
      expect(after).toEqual({ concurrency_used: 1 });
    } finally {
      await user.client.request('DELETE', `/session/${created.sessionId}`, { query: { forced: true } });
    }
  });

  it('accepts and answers the deprecated folder fields of keypair resource policies, as older SDKs send them', async () => {
    const name = unique('legacy-kp-policy');
    const data = await ok(
      t.admin,
      `mutation($name: String!, $input: CreateKeyPairResourcePolicyInput!) {
        create_keypair_resource_policy(name: $name, props: $input) { ok msg resource_policy { name max_concurrent_sessions max_vfolder_count max_vfolder_size max_quota_scope_size } }
      }`,
      { name, input: { default_for_unspecified: 'UNLIMITED', total_resource_slots: '{}', max_concurrent_sessions: 2, max_containers_per_session: 1, max_vfolder_count: 5, max_vfolder_size: 1024, idle_timeout: 0, allowed_vfolder_hosts: '{}' } },
    );
    expect(data.create_keypair_resource_policy).toEqual({
      ok: true,
      msg: 'success',
      resource_policy: { name, max_concurrent_sessions: 2, max_vfolder_count: null, max_vfolder_size: null, max_quota_scope_size: null },
    });
    const modified = await ok(t.admin, 'mutation($n: String!) { modify_keypair_resource_policy(name: $n, props: { max_vfolder_count: 3 }) { ok } }', { n: name });
    expect(modified.modify_keypair_resource_policy.ok).toBe(true);
    const user = await ok(t.admin, '{ user_resource_policy(name: "default") { max_quota_scope_size max_vfolder_size } project_resource_policy(name: "default") { max_quota_scope_size max_vfolder_size } }');
    expect(user.user_resource_policy.max_vfolder_size).toBe(user.user_resource_policy.max_quota_scope_size);
    expect(user.project_resource_policy.max_vfolder_size).toBe(user.project_resource_policy.max_quota_scope_size);
  });

  it("answers a user's totp_activated_at and a project's container_registry, and accepts container_registry on input", async () => {
    expect((await ok(plain.client, '{ user { totp_activated totp_activated_at } }')).user).toEqual({ totp_activated: false, totp_activated_at: null });
    const name = unique('registry-project');
    const created = await ok(t.admin, 'mutation($n: String!) { create_group(name: $n, props: { domain_name: "default", container_registry: "{}" }) { ok group { id container_registry } } }', { n: name });
    expect(created.create_group.ok).toBe(true);
    expect(JSON.parse(created.create_group.group.container_registry)).toEqual({});
    const modified = await ok(t.admin, 'mutation($id: UUID!) { modify_group(gid: $id, props: { container_registry: "{}" }) { ok } }', { id: created.create_group.group.id });
    expect(modified.modify_group.ok).toBe(true);
  });
});

describe('pagination', () => {
  it('pages with limit and offset and counts the total', async () => {
    for (let i = 0; i < 3; i++) await createUserVia(t.admin, { description: 'page-test' });
    const query = 'query($o: Int!) { user_list(limit: 2, offset: $o, filter: "description == \\"page-test\\"", order: "-email") { total_count items { email } } }';
    const first = await ok(t.admin, query, { o: 0 });
    const second = await ok(t.admin, query, { o: 2 });
    expect(first.user_list.total_count).toBe(3);
    expect(first.user_list.items).toHaveLength(2);
    expect(second.user_list.items).toHaveLength(1);
    const emails = [...first.user_list.items, ...second.user_list.items].map((u: { email: string }) => u.email);
    expect(emails).toEqual([...emails].sort().reverse());
  });

  it('refuses a limit above 100', async () => {
    const answer = await gql(t.admin, '{ user_list(limit: 101, offset: 0) { total_count } }');
    expect(answer.data.user_list).toBeNull();
    expect(answer.errors?.[0].message).toContain('limit');
  });

  it('refuses unknown filter and order fields with an error', async () => {
    const filter = await gql(t.admin, '{ keypair_list(limit: 10, offset: 0, filter: "secret_key == \\"x\\"") { total_count } }');
    expect(filter.errors?.[0].message).toContain('unknown field secret_key');
    const order = await gql(t.admin, '{ agent_list(limit: 10, offset: 0, order: "+password") { total_count } }');
    expect(order.errors?.[0].message).toContain('unknown field password');
    const syntax = await gql(t.admin, '{ user_list(limit: 10, offset: 0, filter: "email ==") { total_count } }');
    expect(syntax.errors?.[0].extensions.code).toBe('invalid-api-params');
  });

  it('reads numbers in filters as Backend.AI does: a sign and an exponent are allowed', async () => {
    const user = await t.createUser({ rateLimit: 25000 });
    const query = 'query($f: String) { keypair_list(limit: 10, offset: 0, filter: $f) { items { access_key } } }';
    for (const f of [`rate_limit == 2.5e4 & access_key == "${user.accessKey}"`, `rate_limit > +24999 & access_key == "${user.accessKey}"`]) {
      expect((await ok(t.admin, query, { f })).keypair_list.items).toEqual([{ access_key: user.accessKey }]);
    }
    expect((await gql(t.admin, query, { f: 'rate_limit < 1e999' })).errors?.[0].extensions.code).toBe('invalid-api-params');
  });

  it("filters users on Backend.AI's is_active (an active status)", async () => {
    const { email } = await createUserVia(t.admin, { description: 'is-active-test' });
    const { email: inactive } = await createUserVia(t.admin, { description: 'is-active-test', status: 'inactive' });
    const query = 'query($f: String) { user_list(limit: 10, offset: 0, filter: $f) { total_count items { email is_active } } }';
    const active = await ok(t.admin, query, { f: 'description == "is-active-test" & is_active == true' });
    expect(active.user_list).toEqual({ total_count: 1, items: [{ email, is_active: true }] });
    const notActive = await ok(t.admin, query, { f: 'description == "is-active-test" & is_active != true' });
    expect(notActive.user_list).toEqual({ total_count: 1, items: [{ email: inactive, is_active: false }] });
    const refused = await gql(t.admin, query, { f: 'is_active in [true]' });
    expect(refused.errors?.[0].extensions.code).toBe('invalid-api-params');
  });

  it('filters with like, in and boolean operators', async () => {
    const data = await ok(t.admin, `{ keypair_list(limit: 100, offset: 0, filter: "user_id ilike \\"${plain.email.toUpperCase()}\\" & (is_active == true | is_admin == true)") { items { user_id } } }`);
    expect(data.keypair_list.items.length).toBeGreaterThan(0);
    expect(data.keypair_list.items.every((k: { user_id: string }) => k.user_id === plain.email)).toBe(true);
    const roles = await ok(t.admin, '{ user_list(filter: "role in [\\"superadmin\\"]") { items { role } } }');
    expect(roles.user_list.items).toEqual([{ role: 'superadmin' }]);
  });
});

describe('frozen manager', () => {
  it('refuses every mutation with server-frozen and keeps answering queries', async () => {
    await t.app.manager.setStatus('frozen');
    try {
      const mutation = await gql(t.admin, 'mutation { create_domain(name: "frozen-domain", props: {}) { ok } }');
      expect(mutation.data.create_domain).toBeNull();
      expect(mutation.errors?.[0].extensions.code).toBe('server-frozen');
      expect(mutation.errors?.[0].message).toContain('server-frozen');
      const legacy = await t.admin.request('POST', '/admin/graphql', { body: { query: 'mutation { delete_domain(name: "default") { ok } }' } });
      expect(legacy.status).toBe(400);
      expect(legacy.json().data[0].extensions.code).toBe('server-frozen');
      expect((await ok(t.admin, '{ domain { name is_active } }')).domain).toEqual({ name: 'default', is_active: true });
    } finally {
      await t.app.manager.setStatus('running');
    }
  });
});
