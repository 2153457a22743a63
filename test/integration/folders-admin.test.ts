/**
 * Folder administration (CONTRACT §9.6): quota scopes (GET/POST /folders/_/quota) and their enforcement with 412,
 * usage and used-bytes, change-ownership, the fstab, and mounting a tmpfs under the vfolder root for real.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { json } from '../../server/db';
import { reserveQuota, withQuota } from '../../server/storage/quota';
import { parseVolumeSpec } from '../../server/storage/hosts';

const PROBLEM = 'https://errors.berth.dev/';
const HOST = 'local:volume1';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let domainAdmin: TestUser;
let localAgent: string;

function expectProblem(res: { status: number; json(): any }, status: number, slug: string) {
  expect(res.status, JSON.stringify(res.json())).toBe(status);
  expect(res.json().type).toBe(PROBLEM + slug);
}

let counter = 0;
async function makeFolder(user: TestUser, body: Record<string, unknown> = {}): Promise<{ id: string; name: string; root: string }> {
  const name = `adm-${++counter}`;
  const created = await user.client.call('POST', '/folders', { body: { name, cloneable: false, ...body } });
  return { id: created.id, name, root: path.join(t.app.settings.dataDir, 'vfolders', 'volume1', created.id) };
}

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  localAgent = (await t.app.db.selectFrom('agents').select('id').executeTakeFirstOrThrow()).id;
});
afterAll(() => t?.stop());

describe('quota scopes', () => {
  it('GET answers the scope usage and an unset limit as null', async () => {
    const carol = await t.createUser();
    const f = await makeFolder(carol);
    writeFileSync(path.join(f.root, 'data'), Buffer.alloc(3000));
    const g = await makeFolder(carol);
    writeFileSync(path.join(g.root, 'more'), Buffer.alloc(1000));
    expect(await carol.client.call('GET', '/folders/_/quota', { query: { folder_host: HOST, id: f.id } })).toEqual({ used_bytes: 4000, limit_bytes: null });
  });

  it('POST sets the limit (owner), clamps it to the policy maximum, and ≤0 means the maximum', async () => {
    const dave = await t.createUser();
    const f = await makeFolder(dave);
    const set = (size: unknown) => dave.client.request('POST', '/folders/_/quota', { body: { folder_host: HOST, id: f.id, input: { size_bytes: size } } });
    expect((await set(1048576)).json()).toEqual({ size_bytes: 1048576 });
    expect((await dave.client.call('GET', '/folders/_/quota', { query: { folder_host: HOST, id: f.id } })).limit_bytes).toBe(1048576);
    await t.app.db.insertInto('user_resource_policies').values({ name: 'capped', max_quota_scope_size: 5000 }).execute();
    await t.app.db.updateTable('users').set({ resource_policy: 'capped' }).where('uuid', '=', dave.uuid).execute();
    expect((await set(1048576)).json()).toEqual({ size_bytes: 5000 });
    expect((await set(0)).json()).toEqual({ size_bytes: 5000 });
    expect((await set(100)).json()).toEqual({ size_bytes: 100 });
    expectProblem(await set('lots'), 400, 'invalid-api-params');
  });

  it('only the scope owner or an admin may set it; a folder the caller cannot see is 404', async () => {
    const f = await makeFolder(alice);
    const body = { folder_host: HOST, id: f.id, input: { size_bytes: 10 } };
    expectProblem(await bob.client.request('POST', '/folders/_/quota', { body }), 404, 'object-not-found');
    expectProblem(await bob.client.request('GET', '/folders/_/quota', { query: { folder_host: HOST, id: f.id } }), 404, 'object-not-found');
    // A user the folder is shared with sees it, but does not own its scope.
    await t.app.db.insertInto('vfolder_permissions').values({ vfolder_id: f.id.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'), user_uuid: bob.uuid, permission: 'rw' }).execute();
    expectProblem(await bob.client.request('POST', '/folders/_/quota', { body }), 403, 'generic-forbidden');
    expect((await domainAdmin.client.call('POST', '/folders/_/quota', { body: { ...body, input: { size_bytes: 0 } } }))).toEqual({ size_bytes: null });
    expectProblem(await alice.client.request('GET', '/folders/_/quota', { query: { folder_host: 'local:other', id: f.id } }), 400, 'invalid-api-params');
  });

  it('a project scope is set by its administrator, not by a member', async () => {
    const projectId = randomUUID();
    await t.app.db.insertInto('groups').values({ id: projectId, name: `q-${counter}`, domain_name: 'default', total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) }).execute();
    await t.app.db.insertInto('association_groups_users').values({ group_id: projectId, user_id: alice.uuid }).execute();
    const f = await makeFolder(domainAdmin, { group: projectId });
    const body = { folder_host: HOST, id: f.id, input: { size_bytes: 2048 } };
    expectProblem(await alice.client.request('POST', '/folders/_/quota', { body }), 403, 'generic-forbidden');
    expect(await domainAdmin.client.call('POST', '/folders/_/quota', { body })).toEqual({ size_bytes: 2048 });
    expect(await alice.client.call('GET', '/folders/_/quota', { query: { folder_host: HOST, id: f.id } })).toEqual({ used_bytes: 0, limit_bytes: 2048 });
  });

  it('a write that would pass the limit is refused with 412 before anything is written', async () => {
    const erin = await t.createUser();
    const f = await makeFolder(erin, { quota: '4k' });
    writeFileSync(path.join(f.root, 'half'), Buffer.alloc(2048));
    const folder = { quota_scope_id: `user:${erin.uuid}` };
    // Under the limit: the write runs; the bytes held for it are released afterwards.
    let wrote = false;
    await withQuota(t.app, folder, 1024, async () => {
      wrote = true;
    });
    expect(wrote).toBe(true);
    // Two writes held at once cannot both slip under the limit.
    const first = await reserveQuota(t.app, folder, 1500);
    await expect(reserveQuota(t.app, folder, 1500)).rejects.toMatchObject({ status: 412, slug: 'quota-exceeded' });
    first();
    const again = await reserveQuota(t.app, folder, 1500);
    again();
    // Over the limit: refused, and the write never runs.
    let ran = false;
    await expect(withQuota(t.app, folder, 4096, async () => void (ran = true))).rejects.toMatchObject({ status: 412 });
    expect(ran).toBe(false);
  });

  it('a scope over its limit takes no new directories (412, nothing created)', async () => {
    const frank = await t.createUser();
    const f = await makeFolder(frank);
    writeFileSync(path.join(f.root, 'big'), Buffer.alloc(8192));
    await frank.client.call('POST', '/folders/_/quota', { body: { folder_host: HOST, id: f.id, input: { size_bytes: 4096 } } });
    const res = await frank.client.request('POST', `/folders/${f.name}/mkdir`, { body: { path: 'new-dir', parents: true, exist_ok: false } });
    expectProblem(res, 412, 'quota-exceeded');
    expect(readdirSync(f.root)).toEqual(['big']);
    await frank.client.call('POST', '/folders/_/quota', { body: { folder_host: HOST, id: f.id, input: { size_bytes: 1 << 20 } } });
    expect((await frank.client.call('POST', `/folders/${f.name}/mkdir`, { body: { path: 'new-dir', parents: true, exist_ok: false } })).results.success).toHaveLength(1);
  });
});

describe('usage and used-bytes', () => {
  it('measure the folder from its files (superadmin)', async () => {
    const f = await makeFolder(alice);
    writeFileSync(path.join(f.root, 'a'), Buffer.alloc(100));
    const { mkdirSync, symlinkSync } = await import('node:fs');
    mkdirSync(path.join(f.root, 'sub'));
    writeFileSync(path.join(f.root, 'sub', 'b'), Buffer.alloc(23));
    symlinkSync('/etc/passwd', path.join(f.root, 'link'));
    const linkSize = Buffer.byteLength('/etc/passwd');
    expect(await t.admin.call('GET', '/folders/_/usage', { query: { folder_host: HOST, id: f.id } })).toEqual({ file_count: 3, used_bytes: 123 + linkSize });
    expect(await t.admin.call('GET', '/folders/_/used-bytes', { query: { folder_host: HOST, id: f.id } })).toEqual({ used_bytes: 123 + linkSize });
    expectProblem(await alice.client.request('GET', '/folders/_/usage', { query: { folder_host: HOST, id: f.id } }), 403, 'insufficient-privilege');
    expectProblem(await t.admin.request('GET', '/folders/_/usage', { query: { folder_host: HOST, id: randomUUID() } }), 404, 'object-not-found');
  });
});

describe('change-ownership', () => {
  it('gives a user folder to another user, with its quota scope', async () => {
    const f = await makeFolder(alice);
    writeFileSync(path.join(f.root, 'keep'), 'kept');
    expect(await t.admin.call('POST', '/folders/_/change-ownership', { body: { vfolder: f.id, user_email: bob.email } })).toEqual({});
    const mine = (await bob.client.call('GET', '/folders')).find((x: any) => x.id === f.id);
    expect(mine).toMatchObject({ is_owner: true, user: bob.uuid, quota_scope_id: `user:${bob.uuid}`, permission: 'wd' });
    expect((await alice.client.request('GET', `/folders/${f.id}`)).status).toBe(404);
    expect(readFileSync(path.join(f.root, 'keep'), 'utf8')).toBe('kept');
  });

  it('refuses project folders, unknown users, name clashes and non-superadmins', async () => {
    const projectFolder = await makeFolder(domainAdmin, { group: (await t.app.db.selectFrom('groups').select('id').where('name', '=', 'default').executeTakeFirstOrThrow()).id });
    expectProblem(await t.admin.request('POST', '/folders/_/change-ownership', { body: { vfolder: projectFolder.id, user_email: bob.email } }), 400, 'invalid-api-params');
    const f = await makeFolder(alice);
    expectProblem(await t.admin.request('POST', '/folders/_/change-ownership', { body: { vfolder: f.id, user_email: 'nobody@example.com' } }), 400, 'invalid-api-params');
    await bob.client.call('POST', '/folders', { body: { name: f.name, cloneable: false } });
    expectProblem(await t.admin.request('POST', '/folders/_/change-ownership', { body: { vfolder: f.id, user_email: bob.email } }), 400, 'vfolder-already-exists');
    expectProblem(await domainAdmin.client.request('POST', '/folders/_/change-ownership', { body: { vfolder: f.id, user_email: bob.email } }), 403, 'insufficient-privilege');
    expect((await alice.client.call('GET', `/folders/${f.name}`)).is_owner).toBe(true);
  });

  it('refuses with 412 when the new owner has no room, and changes nothing', async () => {
    const gina = await t.createUser();
    const tiny = await makeFolder(gina, { quota: 100 });
    void tiny;
    const f = await makeFolder(alice);
    writeFileSync(path.join(f.root, 'big'), Buffer.alloc(1000));
    expectProblem(await t.admin.request('POST', '/folders/_/change-ownership', { body: { vfolder: f.id, user_email: gina.email } }), 412, 'quota-exceeded');
    expect((await alice.client.call('GET', `/folders/${f.name}`)).is_owner).toBe(true);
  });
});

describe('fstab', () => {
  it('reads /etc/fstab, or a named file, on the manager or the local agent', async () => {
    const res = await t.admin.call('GET', '/folders/_/fstab');
    expect(res).toEqual({ content: existsSync('/etc/fstab') ? readFileSync('/etc/fstab', 'utf8') : '', node: 'manager', node_id: hostname() });
    const dir = mkdtempSync(path.join(tmpdir(), 'berth-fstab-'));
    writeFileSync(path.join(dir, 'fstab'), 'tmpfs /mnt/x tmpfs defaults 0 0\n');
    expect(await t.admin.call('GET', '/folders/_/fstab', { query: { fstab_path: path.join(dir, 'fstab'), agent_id: localAgent } })).toEqual({
      content: 'tmpfs /mnt/x tmpfs defaults 0 0\n',
      node: 'agent',
      node_id: localAgent,
    });
    expectProblem(await t.admin.request('GET', '/folders/_/fstab', { query: { fstab_path: path.join(dir, 'missing') } }), 404, 'object-not-found');
    expectProblem(await t.admin.request('GET', '/folders/_/fstab', { query: { agent_id: 'no-such-agent' } }), 404, 'object-not-found');
    expectProblem(await t.admin.request('GET', '/folders/_/fstab', { query: { fstab_path: 'relative/fstab' } }), 400, 'invalid-api-params');
    expectProblem(await domainAdmin.client.request('GET', '/folders/_/fstab'), 403, 'insufficient-privilege');
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('mounts', () => {
  const root = () => path.join(t.app.settings.dataDir, 'vfolders');

  it('lists volumes and mounts for the manager, the storage proxy and the local agent', async () => {
    const res = await t.admin.call('GET', '/folders/_/mounts');
    expect(res.manager).toEqual({ success: true, mounts: [], message: '' });
    expect(res['storage-proxy']).toEqual({ success: true, mounts: [[HOST, path.join(root(), 'volume1')]], message: '' });
    expect(Object.keys(res.agents)).toEqual([localAgent]);
    expect(res.agents[localAgent].success).toBe(true);
  });

  it('mounts a tmpfs under the vfolder root, edits a named fstab, and unmounts it', async () => {
    if (process.getuid?.() !== 0) return;
    const dir = mkdtempSync(path.join(tmpdir(), 'berth-fstab-'));
    const fstab = path.join(dir, 'fstab');
    writeFileSync(fstab, '# test table\n');
    const target = path.join(root(), 'scratch-disk');
    const mounted = await t.admin.call('POST', '/folders/_/mounts', {
      body: { fs_location: 'tmpfs', name: 'scratch-disk', fs_type: 'tmpfs', options: 'size=4m,mode=0755', fstab_path: fstab, edit_fstab: true },
    });
    try {
      expect(mounted.manager).toMatchObject({ success: true, mounts: [target] });
      expect(mounted.agents[localAgent].success).toBe(true);
      const mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
      expect(mountinfo).toContain(` ${target} `);
      expect(mountinfo.split('\n').find((l) => l.includes(` ${target} `))).toContain(' - tmpfs ');
      expect(readFileSync(fstab, 'utf8')).toBe(`# test table\ntmpfs ${target} tmpfs size=4m,mode=0755 0 0\n`);
      expect((await t.admin.call('GET', '/folders/_/mounts')).manager.mounts).toEqual([target]);
      // Mounting twice at one name is refused.
      expectProblem(await t.admin.request('POST', '/folders/_/mounts', { body: { fs_location: 'tmpfs', name: 'scratch-disk', fs_type: 'tmpfs', edit_fstab: false } }), 400, 'invalid-api-params');
    } finally {
      const unmounted = await t.admin.call('DELETE', '/folders/_/mounts', { query: { name: 'scratch-disk', fstab_path: fstab, edit_fstab: 'true' } });
      expect(unmounted.manager.success).toBe(true);
    }
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(` ${target} `);
    expect(existsSync(target)).toBe(false);
    expect(readFileSync(fstab, 'utf8')).toBe('# test table\n');
    expect((await t.admin.call('DELETE', '/folders/_/mounts', { query: { name: 'scratch-disk', edit_fstab: 'false' } })).manager.success).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses bad names, a volume, edit_fstab without a named file, and shell tricks', async () => {
    const mount = (body: Record<string, unknown>) => t.admin.request('POST', '/folders/_/mounts', { body: { fs_location: 'tmpfs', fs_type: 'tmpfs', edit_fstab: false, ...body } });
    for (const name of ['..', '.', 'a/b', '-x', '.hidden', 'volume1']) expectProblem(await mount({ name }), 400, 'invalid-api-params');
    expectProblem(await mount({ name: 'ok-name', edit_fstab: true }), 400, 'invalid-api-params');
    expectProblem(await mount({ name: 'ok-name', fs_type: 'tmpfs;reboot' }), 400, 'invalid-api-params');
    expectProblem(await mount({ name: 'ok-name', options: 'size=1m --bind' }), 400, 'invalid-api-params');
    expect(existsSync(path.join(root(), 'ok-name'))).toBe(false);
    expectProblem(await domainAdmin.client.request('POST', '/folders/_/mounts', { body: { fs_location: 'tmpfs', name: 'x', edit_fstab: false } }), 403, 'insufficient-privilege');
  });

  it('reports a failed mount without leaving its mount point behind', async () => {
    if (process.getuid?.() !== 0) return;
    const res = await t.admin.call('POST', '/folders/_/mounts', { body: { fs_location: '/dev/does-not-exist', name: 'broken', fs_type: 'ext4', edit_fstab: false } });
    expect(res.manager.success).toBe(false);
    expect(res.manager.message).not.toBe('');
    expect(existsSync(path.join(root(), 'broken'))).toBe(false);
  });
});

describe('storage hosts from BERTH_STORAGE_VOLUMES', () => {
  let t2: TestBerth;
  let extraDir: string;
  let nasDir: string;
  let mounted = false;

  beforeAll(async () => {
    extraDir = mkdtempSync(path.join(tmpdir(), 'berth-volume-'));
    nasDir = mkdtempSync(path.join(tmpdir(), 'berth-nas-'));
    if (process.getuid?.() === 0) {
      const { execFileSync } = await import('node:child_process');
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', extraDir]);
      mounted = true;
    }
    process.env.BERTH_STORAGE_VOLUMES = JSON.stringify([
      { proxy: 'local', volume: 'fast', path: extraDir, backend: 'tmpfs', capabilities: ['quota', 'metric'] },
      { proxy: 'nas', volume: 'v1', path: nasDir },
    ]);
    t2 = await startTestBerth();
  });
  afterAll(async () => {
    delete process.env.BERTH_STORAGE_VOLUMES;
    await t2?.stop();
    if (mounted) {
      const { execFileSync } = await import('node:child_process');
      execFileSync('umount', [extraDir]);
    }
    rmSync(extraDir, { recursive: true, force: true });
    rmSync(nasDir, { recursive: true, force: true });
  });

  it('lists every volume; a grant key naming a proxy covers all its volumes', async () => {
    expect(await t2.admin.call('GET', '/folders/_/all-hosts')).toEqual({ default: 'local:volume1', allowed: ['local:fast', 'local:volume1', 'nas:v1'] });
    const user = await t2.createUser();
    const hosts = await user.client.call('GET', '/folders/_/hosts');
    expect(hosts.allowed).toEqual(['local:fast', 'local:volume1']);
    expect(hosts.volume_info['local:fast']).toMatchObject({ backend: 'tmpfs', capabilities: ['quota', 'metric'] });
    if (mounted) expect(hosts.volume_info['local:fast'].usage.total).toBe(8 * 1024 * 1024);
  });

  it('creates folders on a configured volume, only with a grant for its host', async () => {
    const user = await t2.createUser();
    const fast = await user.client.call('POST', '/folders', { body: { name: 'on-fast', host: 'local:fast', cloneable: false } });
    expect(fast.host).toBe('local:fast');
    expect(existsSync(path.join(extraDir, fast.id))).toBe(true);
    expectProblem(await user.client.request('POST', '/folders', { body: { name: 'on-nas', host: 'nas:v1', cloneable: false } }), 403, 'generic-forbidden');
    await t2.app.db.updateTable('domains').set({ allowed_vfolder_hosts: json({ local: ['create-vfolder'], 'nas:v1': ['create-vfolder'] }) }).where('name', '=', 'default').execute();
    const nas = await user.client.call('POST', '/folders', { body: { name: 'on-nas', host: 'nas:v1', cloneable: false } });
    expect(existsSync(path.join(nasDir, nas.id))).toBe(true);
  });

  it('a malformed BERTH_STORAGE_VOLUMES is reported clearly', () => {
    expect(() => parseVolumeSpec('nope')).toThrow(/not valid JSON/);
    expect(() => parseVolumeSpec('[{"proxy":"a b","volume":"v","path":"/x"}]')).toThrow(/proxy/);
    expect(() => parseVolumeSpec('[{"proxy":"a","volume":"v","path":"relative"}]')).toThrow(/path/);
    expect(parseVolumeSpec('')).toEqual([]);
  });

  it('an unmanaged path may not overlap a storage volume', async () => {
    const admin = await t2.createUser({ role: 'admin', isAdmin: true });
    for (const p of [nasDir, path.dirname(nasDir)]) {
      expectProblem(await admin.client.request('POST', '/folders', { body: { name: `um-${++counter}`, unmanaged_path: p, cloneable: false } }), 400, 'invalid-api-params');
    }
  });

  it('takes the default host from the configuration store', async () => {
    await t2.app.config.set('volumes/default_host', 'local:fast');
    try {
      const user = await t2.createUser();
      expect((await user.client.call('GET', '/folders/_/hosts')).default).toBe('local:fast');
      expect((await user.client.call('POST', '/folders', { body: { name: 'defaulted', cloneable: false } })).host).toBe('local:fast');
      await t2.app.config.set('volumes/default_host', '');
      expectProblem(await user.client.request('POST', '/folders', { body: { name: 'no-default', cloneable: false } }), 400, 'invalid-api-params');
    } finally {
      await t2.app.config.set('volumes/default_host', 'local:volume1');
    }
  });
});
