/** GraphQL folder roots: the same visibility as GET /folders. */
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

  it('pages, and refuses a limit over 100 and an unsupported filter', async () => {
    expect((await gql(alice, '{ vfolder_list(limit: 0) { total_count items { id } } }')).data.vfolder_list).toEqual({ total_count: 1, items: [] });
    expect((await gql(alice, '{ vfolder_list(limit: 101) { total_count } }')).errors).toBeDefined();
    expect((await gql(alice, '{ vfolder_list(filter: "name == \\"x\\"") { total_count } }')).errors).toBeDefined();
  });

  it('lists storage volumes for superadmins only', async () => {
    const volumes = await gql(null, '{ storage_volume_list { total_count items { id backend } } }');
    expect(volumes.data.storage_volume_list.items).toContainEqual(expect.objectContaining({ id: 'local:volume1' }));
    const refused = await gql(alice, '{ storage_volume_list { total_count } }');
    expect(refused.errors[0].extensions.code).toBe('insufficient-privilege');
  });
});
