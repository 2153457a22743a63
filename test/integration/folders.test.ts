/**
 * Virtual folders (CONTRACT §9.1–9.3, §5.3): create, list, info, hosts, types, rename, options, delete and purge,
 * with exact shapes, both spellings, bad names, the folder-count limit and project folders.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { json } from '../../server/db';

const PROBLEM = 'https://errors.berth.dev/';
const HEX32 = /^[0-9a-f]{32}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let domainAdmin: TestUser;
let projectId: string;

function expectProblem(res: { status: number; json(): any }, status: number, slug: string) {
  expect(res.status, JSON.stringify(res.json())).toBe(status);
  expect(res.json().type).toBe(PROBLEM + slug);
}

let counter = 0;
const unique = (prefix = 'f') => `${prefix}-${++counter}-${Date.now().toString(36)}`;

async function create(user: TestUser, body: Record<string, unknown>) {
  return user.client.request('POST', '/folders', { body: { cloneable: false, ...body } });
}

function volumePath(hex: string, trash = false): string {
  return path.join(t.app.settings.dataDir, 'vfolders', 'volume1', ...(trash ? ['.trash'] : []), hex);
}

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  projectId = randomUUID();
  await t.app.db
    .insertInto('groups')
    .values({ id: projectId, name: 'folders-project', domain_name: 'default', total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) })
    .execute();
  await t.app.db.insertInto('association_groups_users').values([{ group_id: projectId, user_id: alice.uuid }]).execute();
});
/** Directories made for unmanaged folders, removed at the end. */
const scratch: string[] = [];
const unmanagedDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'berth-unmanaged-'));
  scratch.push(dir);
  return dir;
};

afterAll(async () => {
  await t?.stop();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('POST /folders', () => {
  it('creates a user folder on the default host with the exact shape and a directory named by its id', async () => {
    const name = unique();
    const res = await create(alice, { name });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(HEX32),
      name,
      quota_scope_id: `user:${alice.uuid}`,
      host: 'local:volume1',
      usage_mode: 'general',
      permission: 'rw',
      max_size: 0,
      creator: alice.email,
      ownership_type: 'user',
      user: alice.uuid,
      group: null,
      cloneable: false,
      status: 'ready',
    });
    expect(existsSync(volumePath(body.id))).toBe(true);
  });

  it('takes host, usage mode, permission and cloneable', async () => {
    const name = unique();
    const body = (await create(alice, { name, host: 'local:volume1', usage_mode: 'model', permission: 'ro', cloneable: true })).json();
    expect(body).toMatchObject({ name, host: 'local:volume1', usage_mode: 'model', permission: 'ro', cloneable: true });
  });

  it('creates a project folder for an administrator of the project', async () => {
    const name = unique('proj');
    const body = (await create(domainAdmin, { name, group: projectId, permission: 'rw' })).json();
    expect(body).toMatchObject({ name, ownership_type: 'group', user: null, group: projectId, quota_scope_id: `project:${projectId}` });
    const listed = (await alice.client.call('GET', '/folders')).find((f: any) => f.name === name);
    expect(listed).toMatchObject({ ownership_type: 'group', type: 'group', is_owner: false, permission: 'rw', group_name: 'folders-project' });
  });

  it('refuses a project folder to a plain member with 403', async () => {
    expectProblem(await create(alice, { name: unique(), group: projectId }), 403, 'generic-forbidden');
  });

  it('refuses a dot-prefixed project folder, but allows .local', async () => {
    expectProblem(await create(domainAdmin, { name: '.hidden', group: projectId }), 400, 'invalid-api-params');
    expect((await create(domainAdmin, { name: '.local', group: projectId })).status).toBe(200);
  });

  it.each([
    ['an empty name', ''],
    ['a name over 64 characters', 'x'.repeat(65)],
    ['a name with a slash', 'a/b'],
    ['a name with a NUL byte', 'a\u0000b'],
    ['"."', '.'],
    ['".."', '..'],
    ['a reserved dot-name', '.ssh'],
  ])('refuses %s with 400 and creates nothing', async (_, name) => {
    const before = (await alice.client.call('GET', '/folders')).length;
    expectProblem(await create(alice, { name }), 400, 'invalid-api-params');
    expect((await alice.client.call('GET', '/folders')).length).toBe(before);
  });

  it('accepts a name of exactly 64 characters', async () => {
    const name = `${unique('n')}-`.padEnd(64, 'x');
    expect((await create(alice, { name })).status).toBe(200);
  });

  it('refuses a duplicate name with 400 vfolder-already-exists', async () => {
    const name = unique();
    expect((await create(alice, { name })).status).toBe(200);
    expectProblem(await create(alice, { name }), 400, 'vfolder-already-exists');
    // Another user may use the same name for their own folder.
    expect((await create(bob, { name })).status).toBe(200);
  });

  it('refuses an unknown host, a bad usage mode or permission, and an unknown project with 400', async () => {
    expectProblem(await create(alice, { name: unique(), host: 'local:nowhere' }), 400, 'invalid-api-params');
    expectProblem(await create(alice, { name: unique(), usage_mode: 'party' }), 400, 'invalid-api-params');
    expectProblem(await create(alice, { name: unique(), permission: 'all' }), 400, 'invalid-api-params');
    expectProblem(await create(domainAdmin, { name: unique(), group: randomUUID() }), 400, 'invalid-api-params');
  });

  it('refuses a host the caller holds no create-vfolder permission on with 403', async () => {
    const carol = await t.createUser();
    await t.app.db.insertInto('keypair_resource_policies').values({ name: 'no-hosts', total_resource_slots: json({}), allowed_vfolder_hosts: json({}) }).onConflict((oc) => oc.doNothing()).execute();
    await t.app.db.updateTable('keypairs').set({ resource_policy: 'no-hosts' }).where('access_key', '=', carol.accessKey).execute();
    await t.app.db.updateTable('domains').set({ allowed_vfolder_hosts: json({ local: ['mount-in-session'] }) }).where('name', '=', 'default').execute();
    await t.app.db.updateTable('groups').set({ allowed_vfolder_hosts: json({}) }).where('name', '=', 'default').execute();
    t.app.keypairs.invalidate();
    try {
      expectProblem(await create(carol, { name: unique() }), 403, 'generic-forbidden');
      const acl = await carol.client.call('GET', '/acl');
      expect(acl.vfolder_host_permission_list).toEqual(['mount-in-session']);
    } finally {
      const all = json({ local: ['create-vfolder', 'modify-vfolder', 'delete-vfolder', 'mount-in-session', 'upload-file', 'download-file', 'invite-others', 'set-user-specific-permission'] });
      await t.app.db.updateTable('domains').set({ allowed_vfolder_hosts: all }).where('name', '=', 'default').execute();
      await t.app.db.updateTable('groups').set({ allowed_vfolder_hosts: all }).where('name', '=', 'default').execute();
    }
  });

  it('a host key naming one volume grants that volume only', async () => {
    const dave = await t.createUser();
    await t.app.db.insertInto('keypair_resource_policies').values({ name: 'one-volume', total_resource_slots: json({}), allowed_vfolder_hosts: json({ 'local:volume1': ['create-vfolder'] }) }).execute();
    await t.app.db.updateTable('keypairs').set({ resource_policy: 'one-volume' }).where('access_key', '=', dave.accessKey).execute();
    const saved = await t.app.db.selectFrom('domains').select('allowed_vfolder_hosts').where('name', '=', 'default').executeTakeFirstOrThrow();
    await t.app.db.updateTable('domains').set({ allowed_vfolder_hosts: json({ 'local:volume9': ['create-vfolder'] }) }).where('name', '=', 'default').execute();
    const savedGroup = await t.app.db.selectFrom('groups').select('allowed_vfolder_hosts').where('name', '=', 'default').executeTakeFirstOrThrow();
    await t.app.db.updateTable('groups').set({ allowed_vfolder_hosts: json({}) }).where('name', '=', 'default').execute();
    t.app.keypairs.invalidate();
    try {
      expect((await create(dave, { name: unique() })).status).toBe(200);
      const hosts = await dave.client.call('GET', '/folders/_/hosts');
      expect(hosts.allowed).toEqual(['local:volume1']);
    } finally {
      await t.app.db.updateTable('domains').set({ allowed_vfolder_hosts: json(saved.allowed_vfolder_hosts) }).where('name', '=', 'default').execute();
      await t.app.db.updateTable('groups').set({ allowed_vfolder_hosts: json(savedGroup.allowed_vfolder_hosts) }).where('name', '=', 'default').execute();
    }
  });

  it('enforces the user policy folder count with 400, counting live folders only', async () => {
    const erin = await t.createUser();
    await t.app.db.insertInto('user_resource_policies').values({ name: 'two-folders', max_vfolder_count: 2 }).execute();
    await t.app.db.updateTable('users').set({ resource_policy: 'two-folders' }).where('uuid', '=', erin.uuid).execute();
    const first = unique();
    expect((await create(erin, { name: first })).status).toBe(200);
    expect((await create(erin, { name: unique() })).status).toBe(200);
    const refused = await create(erin, { name: unique() });
    expectProblem(refused, 400, 'invalid-api-params');
    await erin.client.call('DELETE', `/folders/${first}`);
    expect((await create(erin, { name: unique() })).status).toBe(200);
  });

  it('creates a folder on an unmanaged path for an admin only, and echoes it', async () => {
    const dir = unmanagedDir();
    writeFileSync(path.join(dir, 'existing.txt'), 'kept');
    expectProblem(await create(alice, { name: unique(), unmanaged_path: dir }), 403, 'insufficient-privilege');
    const name = unique();
    const body = (await create(domainAdmin, { name, unmanaged_path: dir })).json();
    expect(body.unmanaged_path).toBe(dir);
    const files = await domainAdmin.client.call('GET', `/folders/${name}/files`, { query: { path: '' } });
    expect(files.items.map((i: any) => i.name)).toEqual(['existing.txt']);
    expectProblem(await create(domainAdmin, { name: unique(), unmanaged_path: '/etc' }), 400, 'invalid-api-params');
    expectProblem(await create(domainAdmin, { name: unique(), unmanaged_path: t.app.settings.dataDir }), 400, 'invalid-api-params');
  });

  it('applies quota to the quota scope', async () => {
    const frank = await t.createUser();
    const body = (await create(frank, { name: unique(), quota: '10MiB' })).json();
    const quota = await frank.client.call('GET', '/folders/_/quota', { query: { folder_host: 'local:volume1', id: body.id } });
    expect(quota).toEqual({ used_bytes: 0, limit_bytes: 10 * 1024 * 1024 });
  });
});

describe('GET /folders and GET /folders/{name}', () => {
  it('lists the caller\'s folders with the exact shape', async () => {
    const name = unique();
    const created = (await create(alice, { name })).json();
    const list = await alice.client.call('GET', '/folders');
    const entry = list.find((f: any) => f.id === created.id);
    expect(entry).toEqual({
      name,
      id: created.id,
      quota_scope_id: `user:${alice.uuid}`,
      host: 'local:volume1',
      status: 'ready',
      usage_mode: 'general',
      created_at: expect.stringMatching(ISO),
      is_owner: true,
      permission: 'wd',
      user: alice.uuid,
      group: null,
      creator: alice.email,
      user_email: alice.email,
      group_name: null,
      ownership_type: 'user',
      type: 'user',
      cloneable: false,
      max_files: 0,
      max_size: 0,
      cur_size: 0,
    });
    // Others do not see it.
    expect((await bob.client.call('GET', '/folders')).some((f: any) => f.id === created.id)).toBe(false);
  });

  it('restricts project folders to group_id but keeps user folders', async () => {
    const mine = (await create(alice, { name: unique() })).json();
    const project = (await create(domainAdmin, { name: unique('p'), group: projectId })).json();
    const otherProject = randomUUID();
    await t.app.db.insertInto('groups').values({ id: otherProject, name: unique('other'), domain_name: 'default', total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) }).execute();
    await t.app.db.insertInto('association_groups_users').values({ group_id: otherProject, user_id: alice.uuid }).execute();
    const elsewhere = (await create(domainAdmin, { name: unique('p'), group: otherProject })).json();
    const ids = (await alice.client.call('GET', '/folders', { query: { group_id: projectId } })).map((f: any) => f.id);
    expect(ids).toContain(mine.id);
    expect(ids).toContain(project.id);
    expect(ids).not.toContain(elsewhere.id);
  });

  it('answers all=true with 400 deprecated', async () => {
    expectProblem(await alice.client.request('GET', '/folders', { query: { all: 'true' } }), 400, 'deprecated');
  });

  it('lets a superadmin list as another user with owner_user_email, and nobody else', async () => {
    const name = unique();
    await create(bob, { name });
    const asBob = await t.admin.call('GET', '/folders', { query: { owner_user_email: bob.email } });
    expect(asBob.some((f: any) => f.name === name && f.is_owner)).toBe(true);
    expectProblem(await alice.client.request('GET', '/folders', { query: { owner_user_email: bob.email } }), 403, 'insufficient-privilege');
    expectProblem(await domainAdmin.client.request('GET', '/folders', { query: { owner_user_email: bob.email } }), 403, 'insufficient-privilege');
  });

  it('answers folder info with the exact shape and measured usage', async () => {
    const name = unique();
    const created = (await create(alice, { name })).json();
    writeFileSync(path.join(volumePath(created.id), 'a.bin'), Buffer.alloc(1000));
    writeFileSync(path.join(volumePath(created.id), 'b.bin'), Buffer.alloc(24));
    const info = await alice.client.call('GET', `/folders/${name}`);
    expect(info).toEqual({
      name,
      id: created.id,
      host: 'local:volume1',
      quota_scope_id: `user:${alice.uuid}`,
      status: 'ready',
      num_files: 2,
      numFiles: 2,
      used_bytes: 1024,
      created_at: expect.stringMatching(ISO),
      created: expect.stringMatching(ISO),
      last_used: null,
      user: alice.uuid,
      group: null,
      type: 'user',
      is_owner: true,
      permission: 'wd',
      usage_mode: 'general',
      cloneable: false,
      max_size: 0,
      cur_size: 1024,
    });
    // By id, hex32 or hyphenated, too.
    expect((await alice.client.call('GET', `/folders/${created.id}`)).name).toBe(name);
    const hyphenated = created.id.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    expect((await alice.client.call('GET', `/folders/${hyphenated}`)).name).toBe(name);
    // The listing remembers the measured size.
    expect((await alice.client.call('GET', '/folders')).find((f: any) => f.id === created.id).cur_size).toBe(1024);
  });

  it('answers 404 for a folder the caller cannot see, by name or by id', async () => {
    const name = unique();
    const created = (await create(alice, { name })).json();
    const byName = await bob.client.request('GET', `/folders/${name}`);
    expectProblem(byName, 404, 'object-not-found');
    expect(byName.json().title).toBe('No such virtual folder.');
    expectProblem(await bob.client.request('GET', `/folders/${created.id}`), 404, 'object-not-found');
    expectProblem(await bob.client.request('GET', '/folders/no-such-folder'), 404, 'object-not-found');
  });
});

describe('hosts and types', () => {
  it('GET /folders/_/hosts answers default, allowed and real volume usage', async () => {
    const hosts = await alice.client.call('GET', '/folders/_/hosts');
    expect(hosts.default).toBe('local:volume1');
    expect(hosts.allowed).toEqual(['local:volume1']);
    const info = hosts.volume_info['local:volume1'];
    expect(info).toMatchObject({ backend: 'vfs', capabilities: expect.arrayContaining(['quota']), sftp_scaling_groups: [] });
    expect(info.usage.total).toBeGreaterThan(0);
    expect(info.usage.used).toBeGreaterThan(0);
    expect(info.usage.percentage).toBeCloseTo((info.usage.used / info.usage.total) * 100, 1);
    const withGroup = await alice.client.call('GET', '/folders/_/hosts', { query: { group_id: projectId } });
    expect(withGroup.allowed).toEqual(['local:volume1']);
  });

  it('all-hosts and all_hosts are for superadmins', async () => {
    for (const p of ['/folders/_/all-hosts', '/folders/_/all_hosts']) {
      expect(await t.admin.call('GET', p)).toEqual({ default: 'local:volume1', allowed: ['local:volume1'] });
      expectProblem(await alice.client.request('GET', p), 403, 'insufficient-privilege');
      expectProblem(await domainAdmin.client.request('GET', p), 403, 'insufficient-privilege');
    }
  });

  it('allowed-types and allowed_types', async () => {
    for (const p of ['/folders/_/allowed-types', '/folders/_/allowed_types']) expect(await alice.client.call('GET', p)).toEqual(['user', 'group']);
  });

  it('perf-metric measures the volume (superadmin)', async () => {
    const metric = await t.admin.call('GET', '/folders/_/perf-metric', { query: { folder_host: 'local:volume1' } });
    expect(metric.probe.bytes).toBe(4 * 1024 * 1024);
    expect(metric.probe.write_bytes_per_sec).toBeGreaterThan(0);
    expect(metric.probe.read_bytes_per_sec).toBeGreaterThan(0);
    if (metric.metric) {
      for (const k of ['iops_read', 'iops_write', 'io_bytes_read', 'io_bytes_write', 'io_usec_read', 'io_usec_write']) expect(metric.metric[k]).toBeGreaterThanOrEqual(0);
    }
    expectProblem(await t.admin.request('GET', '/folders/_/perf-metric', { query: { folder_host: 'local:nowhere' } }), 400, 'invalid-api-params');
    expectProblem(await alice.client.request('GET', '/folders/_/perf-metric', { query: { folder_host: 'local:volume1' } }), 403, 'insufficient-privilege');
  });
});

describe('rename and update-options', () => {
  it('renames a folder; refuses clashes and bad names', async () => {
    const name = unique();
    const other = unique();
    await create(alice, { name });
    await create(alice, { name: other });
    expect(await alice.client.call('POST', `/folders/${name}/rename`, { body: { new_name: `${name}-new` } })).toEqual({});
    expect((await alice.client.call('GET', `/folders/${name}-new`)).name).toBe(`${name}-new`);
    expectProblem(await alice.client.request('GET', `/folders/${name}`), 404, 'object-not-found');
    expectProblem(await alice.client.request('POST', `/folders/${name}-new/rename`, { body: { new_name: other } }), 400, 'vfolder-already-exists');
    expectProblem(await alice.client.request('POST', `/folders/${name}-new/rename`, { body: { new_name: 'a/b' } }), 400, 'invalid-api-params');
    expectProblem(await alice.client.request('POST', `/folders/${name}-new/rename`, { body: { new_name: '' } }), 400, 'invalid-api-params');
  });

  it('updates cloneable and permission', async () => {
    const name = unique();
    const id = (await create(alice, { name })).json().id;
    expect(await alice.client.call('POST', `/folders/${name}/update-options`, { body: { cloneable: true, permission: 'ro' } })).toEqual({});
    const row = await t.app.db.selectFrom('vfolders').select(['cloneable', 'permission']).where('id', '=', id.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')).executeTakeFirstOrThrow();
    expect(row).toEqual({ cloneable: true, permission: 'ro' });
    expectProblem(await alice.client.request('POST', `/folders/${name}/update-options`, { body: { permission: 'xx' } }), 400, 'invalid-api-params');
  });
});

describe('delete and purge', () => {
  it('moves a deleted folder to the trash (delete-pending) without destroying a byte, and frees its name', async () => {
    const name = unique();
    const created = (await create(alice, { name })).json();
    writeFileSync(path.join(volumePath(created.id), 'keep.txt'), 'precious');
    expect(await alice.client.call('DELETE', `/folders/${name}`)).toEqual({});
    expect(existsSync(volumePath(created.id))).toBe(false);
    expect(readFileSync(path.join(volumePath(created.id, true), 'keep.txt'), 'utf8')).toBe('precious');
    const listed = (await alice.client.call('GET', '/folders')).find((f: any) => f.id === created.id);
    expect(listed.status).toBe('delete-pending');
    expect((await alice.client.call('GET', `/folders/${created.id}`)).status).toBe('delete-pending');
    // Not deletable twice, not writable in the trash.
    expectProblem(await alice.client.request('DELETE', `/folders/${created.id}`), 400, 'vfolder-filter-status-failed');
    expectProblem(await alice.client.request('POST', `/folders/${created.id}/mkdir`, { body: { path: 'x' } }), 400, 'vfolder-filter-status-failed');
    // The name is free again.
    expect((await create(alice, { name })).status).toBe(200);
  });

  it('lets only the owner (or an admin) delete; others get 404', async () => {
    const name = unique();
    await create(alice, { name });
    expectProblem(await bob.client.request('DELETE', `/folders/${name}`), 404, 'object-not-found');
    expect((await alice.client.call('GET', `/folders/${name}`)).status).toBe('ready');
  });

  it('DELETE /folders?id (superadmin) trashes a ready folder and purges a trashed one', async () => {
    const name = unique();
    const created = (await create(alice, { name })).json();
    writeFileSync(path.join(volumePath(created.id), 'f.txt'), 'x');
    expectProblem(await alice.client.request('DELETE', '/folders', { query: { id: created.id } }), 403, 'insufficient-privilege');
    expect(await t.admin.call('DELETE', '/folders', { query: { id: created.id } })).toEqual({});
    expect((await alice.client.call('GET', `/folders/${created.id}`)).status).toBe('delete-pending');
    expect(existsSync(path.join(volumePath(created.id, true), 'f.txt'))).toBe(true);
    expect(await t.admin.call('DELETE', '/folders', { query: { id: created.id } })).toEqual({});
    expect(existsSync(volumePath(created.id, true))).toBe(false);
    expectProblem(await alice.client.request('GET', `/folders/${created.id}`), 404, 'object-not-found');
    expectProblem(await t.admin.request('DELETE', '/folders', { query: { id: created.id } }), 404, 'object-not-found');
    expectProblem(await t.admin.request('DELETE', '/folders', { query: { id: 'not-a-uuid' } }), 400, 'invalid-api-params');
  });

  it('purging an unmanaged folder leaves its files on disk', async () => {
    const dir = unmanagedDir();
    writeFileSync(path.join(dir, 'data.txt'), 'admin data');
    const created = (await create(domainAdmin, { name: unique(), unmanaged_path: dir })).json();
    await t.admin.call('DELETE', '/folders', { query: { id: created.id } });
    await t.admin.call('DELETE', '/folders', { query: { id: created.id } });
    expect(readFileSync(path.join(dir, 'data.txt'), 'utf8')).toBe('admin data');
  });
});

describe('manager status', () => {
  it('while frozen, RUNNING routes answer 503 and FROZEN routes keep working', async () => {
    const name = unique();
    await create(alice, { name });
    await t.admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: false } });
    try {
      expectProblem(await create(alice, { name: unique() }), 503, 'server-frozen');
      expectProblem(await alice.client.request('DELETE', `/folders/${name}`), 503, 'server-frozen');
      expectProblem(await alice.client.request('POST', `/folders/${name}/rename`, { body: { new_name: unique() } }), 503, 'server-frozen');
      expect((await alice.client.request('GET', '/folders')).status).toBe(200);
      expect((await alice.client.request('POST', `/folders/${name}/mkdir`, { body: { path: 'while-frozen' } })).status).toBe(200);
    } finally {
      await t.admin.call('PUT', '/manager/status', { body: { status: 'running', force_kill: false } });
    }
  });
});
