/** GraphQL folder roots: the same visibility as GET /folders. */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let folderId: string;

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
  folderId = (await alice.client.call('POST', '/folders', { body: { name: 'gql-data', cloneable: false } })).id;
});
afterAll(() => t?.stop());

const gql = (user: TestUser | null, query: string) => (user ? user.client : t.admin).call('POST', '/admin/gql', { body: { query } });

describe('GraphQL folders', () => {
  it('lists the caller\'s folders with Backend.AI field names', async () => {
    const answer = await gql(alice, '{ vfolder_list { total_count items { id name host ownership_type permission is_owner user_email } } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data.vfolder_list.total_count).toBe(1);
    expect(answer.data.vfolder_list.items[0]).toEqual({ id: folderId, name: 'gql-data', host: 'local:volume1', ownership_type: 'user', permission: 'wd', is_owner: true, user_email: alice.email });
    expect((await gql(alice, `{ vfolder(id: "${folderId}") { name } }`)).data.vfolder).toEqual({ name: 'gql-data' });
    expect((await gql(alice, '{ vfolder_own_list { total_count } }')).data.vfolder_own_list.total_count).toBe(1);
  });

  it('shows nothing of it to another user', async () => {
    expect((await gql(bob, '{ vfolder_list { total_count } }')).data.vfolder_list.total_count).toBe(0);
    expect((await gql(bob, `{ vfolder(id: "${folderId}") { name } }`)).data.vfolder).toBeNull();
  });

  it('pages, and refuses a limit over 100 and a filter on an unknown field', async () => {
    expect((await gql(alice, '{ vfolder_list(limit: 0) { total_count items { id } } }')).data.vfolder_list).toEqual({ total_count: 1, items: [] });
    expect((await gql(alice, '{ vfolder_list(limit: 101) { total_count } }')).errors).toBeDefined();
    expect((await gql(alice, '{ vfolder_list(filter: "secret == \\"x\\"") { total_count } }')).errors[0].message).toMatch(/unknown field secret/);
    expect((await gql(alice, '{ vfolder_list(order: "-secret") { total_count } }')).errors[0].message).toMatch(/unknown field secret/);
  });

  it('filters and orders vfolder_list with Backend.AI field names, within what the caller reaches', async () => {
    const carol = await t.createUser();
    for (const name of ['fo-b', 'fo-a', 'fo-c']) await carol.client.call('POST', '/folders', { body: { name, usage_mode: name === 'fo-c' ? 'data' : 'general' } });
    await bob.client.call('POST', '/folders', { body: { name: 'fo-bob' } });
    const q = async (args: string) => (await gql(carol, `{ vfolder_list(${args}) { total_count items { name } } }`)).data.vfolder_list;
    expect(await q('order: "-name"')).toEqual({ total_count: 3, items: [{ name: 'fo-c' }, { name: 'fo-b' }, { name: 'fo-a' }] });
    expect(await q('order: "name asc", limit: 2, offset: 1')).toEqual({ total_count: 3, items: [{ name: 'fo-b' }, { name: 'fo-c' }] });
    expect(await q('filter: "usage_mode == \\"data\\" | name == \\"fo-a\\"", order: "+name"')).toEqual({ total_count: 2, items: [{ name: 'fo-a' }, { name: 'fo-c' }] });
    expect(await q(`filter: "user_email == \\"${carol.email}\\" & name ilike \\"FO-%\\""`)).toMatchObject({ total_count: 3 });
    // Another user's folder never comes back, whatever the filter says.
    expect(await q('filter: "name == \\"fo-bob\\""')).toEqual({ total_count: 0, items: [] });
    expect((await gql(carol, '{ vfolder_own_list(filter: "name in [\\"fo-a\\", \\"fo-b\\"]", order: "-name") { total_count items { name } } }')).data.vfolder_own_list).toEqual({ total_count: 2, items: [{ name: 'fo-b' }, { name: 'fo-a' }] });
  });

  it('lists storage volumes for superadmins only', async () => {
    const volumes = await gql(null, '{ storage_volume_list { total_count items { id backend } } }');
    expect(volumes.data.storage_volume_list.items).toContainEqual(expect.objectContaining({ id: 'local:volume1' }));
    const refused = await gql(alice, '{ storage_volume_list { total_count } }');
    expect(refused.errors[0].extensions.code).toBe('insufficient-privilege');
  });
});

describe('GraphQL quota scopes', () => {
  const HOST = 'local:volume1';
  const scopeQuery = (scope: string, host = HOST) => `{ quota_scope(storage_host_name: "${host}", quota_scope_id: "${scope}") { id quota_scope_id storage_host_name details { usage_bytes usage_count hard_limit_bytes } } }`;
  const setQuery = (scope: string, bytes: number) => `mutation { set_quota_scope(quota_scope_id: "${scope}", storage_host_name: "${HOST}", props: { hard_limit_bytes: ${bytes} }) { ok msg quota_scope { details { hard_limit_bytes } } } }`;
  const unsetQuery = (scope: string) => `mutation { unset_quota_scope(quota_scope_id: "${scope}", storage_host_name: "${HOST}") { ok msg quota_scope { details { hard_limit_bytes } } } }`;
  const restQuota = (user: TestUser, id: string) => user.client.call('GET', '/folders/_/quota', { query: { folder_host: HOST, id } });

  it('reads the caller\'s scope with its usage, and hides it from others', async () => {
    const dave = await t.createUser();
    const folder = await dave.client.call('POST', '/folders', { body: { name: 'qs-read' } });
    writeFileSync(path.join(t.app.settings.dataDir, 'vfolders', 'volume1', folder.id, 'f.bin'), Buffer.alloc(1234));
    const scope = `user:${dave.uuid}`;
    const answer = await gql(dave, scopeQuery(scope));
    expect(answer.errors).toBeUndefined();
    expect(answer.data.quota_scope).toEqual({
      id: Buffer.from(`QuotaScope:${HOST}/${scope}`).toString('base64'),
      quota_scope_id: scope,
      storage_host_name: HOST,
      details: { usage_bytes: 1234, usage_count: 1, hard_limit_bytes: null },
    });
    const hidden = await gql(bob, scopeQuery(scope));
    expect(hidden.data.quota_scope).toBeNull();
    expect(hidden.errors[0].extensions.code).toBe('object-not-found');
    expect((await gql(dave, scopeQuery(scope, 'local:nowhere'))).errors[0].extensions.code).toBe('object-not-found');
    expect((await gql(dave, scopeQuery('user:not-a-uuid'))).errors[0].extensions.code).toBe('invalid-api-params');
    // The superadmin reads any scope.
    expect((await gql(null, scopeQuery(scope))).data.quota_scope.details.usage_bytes).toBe(1234);
  });

  it('sets and unsets with the rules of POST /folders/_/quota, seen by the REST calls too', async () => {
    const erin = await t.createUser();
    const folder = await erin.client.call('POST', '/folders', { body: { name: 'qs-set' } });
    const scope = `user:${erin.uuid}`;
    const set = await gql(erin, setQuery(scope, 5000));
    expect(set.data.set_quota_scope).toEqual({ ok: true, msg: 'success', quota_scope: { details: { hard_limit_bytes: 5000 } } });
    expect(await restQuota(erin, folder.id)).toEqual({ used_bytes: 0, limit_bytes: 5000 });
    expect((await erin.client.request('POST', '/folders/qs-set/request-upload', { body: { path: 'big', size: 6000 } })).status).toBe(412);

    // Someone the folder is shared with reads the scope (as REST lets them), but may not set it.
    await t.app.db.insertInto('vfolder_permissions').values({ vfolder_id: folder.id.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'), user_uuid: bob.uuid, permission: 'rw' }).execute();
    expect((await gql(bob, scopeQuery(scope))).data.quota_scope.details.hard_limit_bytes).toBe(5000);
    const refused = await gql(bob, setQuery(scope, 1));
    expect(refused.data.set_quota_scope).toBeNull();
    expect(refused.errors[0].extensions.code).toBe('generic-forbidden');
    expect((await restQuota(erin, folder.id)).limit_bytes).toBe(5000);

    // The policy caps it; unset leaves the policy's maximum.
    await t.app.db.insertInto('user_resource_policies').values({ name: 'gql-capped', max_quota_scope_size: 3000 }).execute();
    await t.app.db.updateTable('users').set({ resource_policy: 'gql-capped' }).where('uuid', '=', erin.uuid).execute();
    expect((await gql(erin, setQuery(scope, 5000))).data.set_quota_scope.quota_scope.details.hard_limit_bytes).toBe(3000);
    expect((await gql(erin, unsetQuery(scope))).data.unset_quota_scope).toEqual({ ok: true, msg: 'success', quota_scope: { details: { hard_limit_bytes: 3000 } } });
    await t.app.db.updateTable('users').set({ resource_policy: 'default' }).where('uuid', '=', erin.uuid).execute();
    expect(await restQuota(erin, folder.id)).toEqual({ used_bytes: 0, limit_bytes: null });

    // A domain admin of the scope's domain may set it; an unknown scope is a soft failure.
    const admin = await t.createUser({ role: 'admin', isAdmin: true });
    expect((await gql(admin, setQuery(scope, 700))).data.set_quota_scope.ok).toBe(true);
    expect((await restQuota(erin, folder.id)).limit_bytes).toBe(700);
    const unknown = await gql(admin, setQuery(`user:${randomUUID()}`, 1));
    expect(unknown.data.set_quota_scope).toEqual({ ok: false, msg: expect.stringMatching(/No quota scope/), quota_scope: null });
  });
});

describe('GraphQL vfolder_permission_list', () => {
  it('lists shares to the owner, the user shared with and the superadmin only', async () => {
    const owner = await t.createUser();
    const friend = await t.createUser();
    const stranger = await t.createUser();
    const folder = await owner.client.call('POST', '/folders', { body: { name: 'perm-list' } });
    const uuid = folder.id.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    await t.app.db.insertInto('vfolder_permissions').values({ vfolder_id: uuid, user_uuid: friend.uuid, permission: 'ro' }).execute();
    const query = `{ vfolder_permission_list(filter: "vfolder == \\"${uuid}\\"") { total_count items { permission vfolder vfolder_name user user_email } } }`;
    const row = { permission: 'ro', vfolder: uuid, vfolder_name: 'perm-list', user: friend.uuid, user_email: friend.email };
    for (const who of [owner, friend, null]) expect((await gql(who, query)).data.vfolder_permission_list).toEqual({ total_count: 1, items: [row] });
    expect((await gql(stranger, query)).data.vfolder_permission_list).toEqual({ total_count: 0, items: [] });
  });
});
