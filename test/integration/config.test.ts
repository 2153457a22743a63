/** §Access control and configuration: the raw store, resource slots, registries and /acl. One behaviour per test. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import type { ApiResponse } from '../../server/client/client';
import { json } from '../../server/db';

let t: TestBerth;
let user: TestUser;
let domainAdmin: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  t = await startTestBerth();
  user = await t.createUser();
  domainAdmin = await t.createUser({ isAdmin: true });
  await t.createDomain('cfg-other');
  outsider = await t.createUser({ domain: 'cfg-other' });
});
afterAll(() => t?.stop());

function expectProblem(res: ApiResponse, status: number, slug: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.json().type).toBe(`https://errors.berth.dev/${slug}`);
}

const set = (key: string, value: unknown) => t.admin.call('POST', '/config/set', { body: { key, value } });
const get = (key: string, prefix = false) => t.admin.call('POST', '/config/get', { body: { key, prefix } });

describe('POST /config/set and /config/get', () => {
  it('set answers {"result":"ok"} and get reads the value back', async () => {
    expect(await set('cfgtest/plain', 'hello')).toEqual({ result: 'ok' });
    expect(await get('cfgtest/plain')).toEqual({ result: 'hello' });
  });

  it('get of a missing key answers {"result": null}', async () => {
    expect(await get('cfgtest/never-set')).toEqual({ result: null });
  });

  it('set overwrites an existing value', async () => {
    await set('cfgtest/over', 'one');
    await set('cfgtest/over', 'two');
    expect(await get('cfgtest/over')).toEqual({ result: 'two' });
  });

  it('set accepts an empty string value', async () => {
    await set('cfgtest/empty', '');
    expect(await get('cfgtest/empty')).toEqual({ result: '' });
  });

  it('set with an object stores it flattened under the key', async () => {
    await set('cfgtest/tree', { a: 'x', b: { c: 'y' } });
    expect(await get('cfgtest/tree/b/c')).toEqual({ result: 'y' });
    expect(await get('cfgtest/tree/', true)).toEqual({ result: { a: 'x', b: { c: 'y' } } });
  });

  it('prefix get uses plain string-prefix matching: some/key1 also returns some/key12 and its children', async () => {
    await set('pfx-get/key1', 'v1');
    await set('pfx-get/key1/child', 'c');
    await set('pfx-get/key12', 'v12');
    await set('pfx-get/key12/deep', 'd');
    await set('pfx-get/key2', 'other');
    expect(await get('pfx-get/key1', true)).toEqual({ result: { '': 'v1', child: 'c', '2': { '': 'v12', deep: 'd' } } });
  });

  it('prefix get with no matching key answers an empty object', async () => {
    expect(await get('cfgtest/nothing-here/', true)).toEqual({ result: {} });
  });

  it('prefix accepts the text forms of a boolean', async () => {
    await set('cfgtest/textbool', 'v');
    expect(await t.admin.call('POST', '/config/get', { body: { key: 'cfgtest/textbool', prefix: 'false' } })).toEqual({ result: 'v' });
  });
});

describe('POST /config/delete', () => {
  it('without prefix deletes exactly the key', async () => {
    await set('del-exact/key1', 'a');
    await set('del-exact/key12', 'b');
    expect(await t.admin.call('POST', '/config/delete', { body: { key: 'del-exact/key1', prefix: false } })).toEqual({ result: 'ok' });
    expect(await get('del-exact/key1')).toEqual({ result: null });
    expect(await get('del-exact/key12')).toEqual({ result: 'b' });
  });

  it('with prefix also deletes sibling keys sharing the string prefix', async () => {
    await set('del-pfx/key1', 'a');
    await set('del-pfx/key1/child', 'c');
    await set('del-pfx/key12', 'b');
    await set('del-pfx/key2', 'keep');
    expect(await t.admin.call('POST', '/config/delete', { body: { key: 'del-pfx/key1', prefix: true } })).toEqual({ result: 'ok' });
    expect(await get('del-pfx/', true)).toEqual({ result: { key2: 'keep' } });
  });

  it('deleting a missing key still answers ok', async () => {
    expect(await t.admin.call('POST', '/config/delete', { body: { key: 'cfgtest/absent', prefix: false } })).toEqual({ result: 'ok' });
  });

  it('prefix matching treats LIKE wildcards literally', async () => {
    await set('wild/a_b', '1');
    await set('wild/axb', '2');
    await t.admin.call('POST', '/config/delete', { body: { key: 'wild/a_', prefix: true } });
    expect(await get('wild/', true)).toEqual({ result: { axb: '2' } });
  });
});

describe('raw configuration input validation', () => {
  it.each([
    ['/config/get', {}, 'key'],
    ['/config/get', { key: 'k' }, 'prefix'],
    ['/config/get', { key: 42, prefix: false }, 'key'],
    ['/config/get', { key: 'k', prefix: 'maybe' }, 'prefix'],
    ['/config/get', { key: '', prefix: false }, 'key'],
    ['/config/set', { key: 'k' }, 'value'],
    ['/config/set', { value: 'v' }, 'key'],
    ['/config/set', { key: 'k', value: 42 }, 'value'],
    ['/config/set', { key: 'k', value: ['a'] }, 'value'],
    ['/config/set', { key: 'nul\u0000key', value: 'v' }, 'key'],
    ['/config/delete', { key: 'k' }, 'prefix'],
    ['/config/delete', { prefix: true }, 'key'],
  ])('POST %s %j → 400 naming the field', async (path, body, field) => {
    const res = await t.admin.request('POST', path, { body });
    expectProblem(res, 400, 'invalid-api-params');
    expect(res.json().data).toHaveProperty(field);
  });

  it('a NUL character inside an object value → 400, not a database error', async () => {
    const res = await t.admin.request('POST', '/config/set', { body: { key: 'cfgtest/nul', value: { a: 'x\u0000y' } } });
    expectProblem(res, 400, 'invalid-api-params');
  });

  it('a key longer than the store takes → 400', async () => {
    const res = await t.admin.request('POST', '/config/set', { body: { key: 'k'.repeat(5000), value: 'v' } });
    expectProblem(res, 400, 'invalid-api-params');
  });

  it('a non-JSON body → 400', async () => {
    expectProblem(await t.admin.request('POST', '/config/get', { rawBody: '{nope' }), 400, 'invalid-api-params');
  });
});

describe('raw configuration privilege', () => {
  const calls: [string, string, unknown][] = [
    ['POST', '/config/get', { key: 'cfgtest/plain', prefix: false }],
    ['POST', '/config/set', { key: 'cfgtest/plain', value: 'x' }],
    ['POST', '/config/delete', { key: 'cfgtest/plain', prefix: false }],
    ['GET', '/config/docker-registries', undefined],
  ];

  it.each(calls)('a plain user: %s %s → 403 insufficient-privilege', async (method, path, body) => {
    expectProblem(await user.client.request(method, path, { body }), 403, 'insufficient-privilege');
  });

  it.each(calls)('a domain admin: %s %s → 403 insufficient-privilege', async (method, path, body) => {
    expectProblem(await domainAdmin.client.request(method, path, { body }), 403, 'insufficient-privilege');
  });

  it.each(calls)('a user of another domain: %s %s → 403 insufficient-privilege', async (method, path, body) => {
    expectProblem(await outsider.client.request(method, path, { body }), 403, 'insufficient-privilege');
  });

  it('an unsigned request → 401', async () => {
    expectProblem(await t.anonymous.request('POST', '/config/get', { body: { key: 'k', prefix: false } }), 401, 'auth-failed');
  });

  it('a refused set leaves the value untouched', async () => {
    await set('cfgtest/guarded', 'original');
    await user.client.request('POST', '/config/set', { body: { key: 'cfgtest/guarded', value: 'hacked' } });
    expect(await get('cfgtest/guarded')).toEqual({ result: 'original' });
  });
});

describe('GET /config/resource-slots', () => {
  it('lists cpu as count and mem as bytes for a plain user', async () => {
    const slots = await user.client.call('GET', '/config/resource-slots');
    expect(slots).toMatchObject({ cpu: 'count', mem: 'bytes' });
  });

  it('includes a slot an ALIVE agent reports, and leaves out one only a LOST agent reports', async () => {
    await t.app.db
      .insertInto('agents')
      .values([
        { id: 'i-cfg-gpu', scaling_group: 'default', status: 'ALIVE', available_slots: json({ cpu: '4', mem: '1024', 'cuda.shares': '2' }), occupied_slots: json({}), compute_plugins: json({}), schedulable: false },
        { id: 'i-cfg-lost', scaling_group: 'default', status: 'LOST', available_slots: json({ cpu: '4', 'tpu.device': '1' }), occupied_slots: json({}), compute_plugins: json({}), schedulable: false },
      ])
      .execute();
    const slots = await user.client.call('GET', '/config/resource-slots');
    expect(slots['cuda.shares']).toBe('count');
    expect(slots).not.toHaveProperty('tpu.device');
  });

  it('an unsigned request → 401', async () => {
    expectProblem(await t.anonymous.request('GET', '/config/resource-slots'), 401, 'auth-failed');
  });
});

describe('GET /config/resource-slots/details', () => {
  it('answers an unsigned request with the display details of cpu and mem', async () => {
    const res = await t.anonymous.request('GET', '/config/resource-slots/details');
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.cpu).toEqual({
      slot_name: 'cpu', description: expect.any(String), human_readable_name: expect.any(String), display_unit: expect.any(String),
      number_format: { binary: false, round_length: expect.any(Number) }, display_icon: expect.any(String),
    });
    expect(body.mem).toMatchObject({ slot_name: 'mem', number_format: { binary: true } });
  });

  it('with sgroup lists only the slots that scaling group reports besides cpu and mem', async () => {
    await t.app.db.insertInto('scaling_groups').values({ name: 'sg-details', driver_opts: json({}), scheduler_opts: json({}) }).execute();
    await t.app.db
      .insertInto('agents')
      .values({ id: 'i-details', scaling_group: 'sg-details', status: 'ALIVE', available_slots: json({ cpu: '2', mem: '1024', 'rocm.device': '1' }), occupied_slots: json({}), compute_plugins: json({}) })
      .execute();
    const inGroup = (await t.anonymous.request('GET', '/config/resource-slots/details', { query: { sgroup: 'sg-details' } })).json();
    expect(Object.keys(inGroup).sort()).toEqual(['cpu', 'mem', 'rocm.device']);
    const elsewhere = (await t.anonymous.request('GET', '/config/resource-slots/details', { query: { sgroup: 'default' } })).json();
    expect(elsewhere).not.toHaveProperty('rocm.device');
  });

  it('an unknown sgroup answers the base slots', async () => {
    const body = (await t.anonymous.request('GET', '/config/resource-slots/details', { query: { sgroup: 'no-such-sgroup' } })).json();
    expect(Object.keys(body).sort()).toEqual(['cpu', 'mem']);
  });
});

describe('GET /config/docker-registries', () => {
  it('maps registry names to URLs for a superadmin', async () => {
    await t.app.db.insertInto('container_registries').values({ id: randomUUID(), url: 'https://cr.example.com', registry_name: 'cr.example.com' }).execute();
    const registries = await t.admin.call('GET', '/config/docker-registries');
    expect(registries['cr.example.com']).toBe('https://cr.example.com');
  });

  it('keys a project-bound registry as <project>/<registry>', async () => {
    await t.app.db.insertInto('container_registries').values({ id: randomUUID(), url: 'https://proj.example.com', registry_name: 'proj.example.com', project: 'stable' }).execute();
    const registries = await t.admin.call('GET', '/config/docker-registries');
    expect(registries['stable/proj.example.com']).toBe('https://proj.example.com');
  });
});

describe('GET /acl', () => {
  const ALL = ['create-vfolder', 'modify-vfolder', 'delete-vfolder', 'mount-in-session', 'upload-file', 'download-file', 'invite-others', 'set-user-specific-permission'];

  it('answers every host permission for a user of the default domain', async () => {
    expect(await user.client.call('GET', '/acl')).toEqual({ vfolder_host_permission_list: ALL });
  });

  it('answers the union of domain, project and keypair-policy grants, in the contract order', async () => {
    await t.createDomain('acl-dom');
    await t.app.db
      .updateTable('domains')
      .set({ allowed_vfolder_hosts: json({ nfs: ['upload-file'] }) })
      .where('name', '=', 'acl-dom')
      .execute();
    await t.app.db
      .insertInto('keypair_resource_policies')
      .values({ name: 'acl-narrow', total_resource_slots: json({}), allowed_vfolder_hosts: json({ local: ['download-file', 'create-vfolder'] }) })
      .execute();
    const groupId = randomUUID();
    await t.app.db
      .insertInto('groups')
      .values({ id: groupId, name: 'acl-proj', domain_name: 'acl-dom', total_resource_slots: json({}), allowed_vfolder_hosts: json({ local: ['mount-in-session'] }), dotfiles: json([]) })
      .execute();
    const narrow = await t.createUser({ domain: 'acl-dom' });
    await t.app.db.insertInto('association_groups_users').values({ group_id: groupId, user_id: narrow.uuid }).execute();
    await t.app.db.updateTable('keypairs').set({ resource_policy: 'acl-narrow' }).where('access_key', '=', narrow.accessKey).execute();
    t.app.keypairs.invalidate();
    expect(await narrow.client.call('GET', '/acl')).toEqual({
      vfolder_host_permission_list: ['create-vfolder', 'mount-in-session', 'upload-file', 'download-file'],
    });
  });

  it('an unsigned request → 401', async () => {
    expectProblem(await t.anonymous.request('GET', '/acl'), 401, 'auth-failed');
  });
});
