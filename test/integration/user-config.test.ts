/**
 * Dotfiles of users, domains and projects and the user's bootstrap script (CONTRACT §14.3): round trips with exact
 * shapes, the per-scope limits, path rules, privileges, delegation, and that both really land in a new session.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { json } from '../../server/db';
import type { BerthClient } from '../../server/client/client';

const PROBLEM = 'https://errors.berth.dev/';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let defaultAdmin: TestUser;
/** Domain `cfg-dom`: its admin, a member, and a project with `member` in it. */
let domAdmin: TestUser;
let member: TestUser;
let outsider: TestUser;
let projectId: string;
/** Domain `cfg-other`: its admin and a user. */
let otherAdmin: TestUser;
let otherUser: TestUser;

async function createProject(domain: string, name: string, members: TestUser[]): Promise<string> {
  const id = randomUUID();
  await t.app.db
    .insertInto('groups')
    .values({ id, name, domain_name: domain, total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) })
    .execute();
  if (members.length) await t.app.db.insertInto('association_groups_users').values(members.map((m) => ({ group_id: id, user_id: m.uuid }))).execute();
  return id;
}

beforeAll(async () => {
  t = await startTestBerth();
  await t.createDomain('cfg-dom');
  await t.createDomain('cfg-other');
  alice = await t.createUser();
  bob = await t.createUser();
  defaultAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  domAdmin = await t.createUser({ role: 'admin', isAdmin: true, domain: 'cfg-dom' });
  member = await t.createUser({ domain: 'cfg-dom' });
  outsider = await t.createUser({ domain: 'cfg-dom' });
  otherAdmin = await t.createUser({ role: 'admin', isAdmin: true, domain: 'cfg-other' });
  otherUser = await t.createUser({ domain: 'cfg-other' });
  projectId = await createProject('cfg-dom', 'cfg-project', [member]);
});
afterAll(() => t?.stop());

let counter = 0;
const unique = (prefix = '.rc') => `${prefix}-${++counter}`;

const userDotfiles = (client: BerthClient, query: Record<string, string> = {}) => client.call('GET', '/user-config/dotfiles', { query });

function expectProblem(res: { status: number; json(): any }, status: number, slug: string) {
  expect(res.status).toBe(status);
  expect(res.json().type).toBe(PROBLEM + slug);
}

describe('/user-config/dotfiles', () => {
  it('creates a dotfile and lists it as [{path, permission, data}]', async () => {
    const user = await t.createUser();
    const res = await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.vimrc', permission: '644', data: 'set nu\n' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({});
    expect(await userDotfiles(user.client)).toEqual([{ path: '.vimrc', permission: '644', data: 'set nu\n' }]);
  });

  it('answers the single-item form with both permission and perm', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.gitconfig', permission: '600', data: '[user]\n' } });
    expect(await userDotfiles(user.client, { path: '.gitconfig' })).toEqual({ path: '.gitconfig', permission: '600', perm: '600', data: '[user]\n' });
  });

  it('lists nothing for a new user', async () => {
    const user = await t.createUser();
    expect(await userDotfiles(user.client)).toEqual([]);
  });

  it('answers 404 object-not-found for a GET of a path that holds no dotfile', async () => {
    expectProblem(await alice.client.request('GET', '/user-config/dotfiles', { query: { path: '.no-such-file' } }), 404, 'object-not-found');
  });

  it('PATCH replaces data and permission and answers {}', async () => {
    const path = unique();
    await alice.client.call('POST', '/user-config/dotfiles', { body: { path, permission: '644', data: 'old' } });
    const res = await alice.client.request('PATCH', '/user-config/dotfiles', { body: { path, permission: '600', data: 'new' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({});
    expect(await userDotfiles(alice.client, { path })).toEqual({ path, permission: '600', perm: '600', data: 'new' });
  });

  it('PATCH of a missing path answers 404 object-not-found and stores nothing', async () => {
    const user = await t.createUser();
    expectProblem(await user.client.request('PATCH', '/user-config/dotfiles', { body: { path: '.missing', permission: '644', data: 'x' } }), 404, 'object-not-found');
    expect(await userDotfiles(user.client)).toEqual([]);
  });

  it('DELETE ?path answers {"success":true} and removes the dotfile', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.a', permission: '644', data: 'a' } });
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.b', permission: '644', data: 'b' } });
    const res = await user.client.request('DELETE', '/user-config/dotfiles', { query: { path: '.a' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect(await userDotfiles(user.client)).toEqual([{ path: '.b', permission: '644', data: 'b' }]);
  });

  it('DELETE of a missing path answers 404 object-not-found', async () => {
    expectProblem(await alice.client.request('DELETE', '/user-config/dotfiles', { query: { path: '.never-created' } }), 404, 'object-not-found');
  });

  it('keeps the order of creation in the list', async () => {
    const user = await t.createUser();
    for (const path of ['.z', '.a', '.m']) await user.client.call('POST', '/user-config/dotfiles', { body: { path, permission: '644', data: path } });
    expect((await userDotfiles(user.client)).map((f: { path: string }) => f.path)).toEqual(['.z', '.a', '.m']);
  });

  it('refuses a duplicate with 400 generic-bad-request "Dotfile already exists." and keeps one entry', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.bashrc', permission: '644', data: 'first' } });
    const res = await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.bashrc', permission: '600', data: 'second' } });
    expectProblem(res, 400, 'generic-bad-request');
    expect(res.json().detail).toBe('Dotfile already exists.');
    expect(await userDotfiles(user.client)).toEqual([{ path: '.bashrc', permission: '644', data: 'first' }]);
  });

  it('treats /home/work/<path> as the same dotfile as <path>', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.profile', permission: '644', data: 'x' } });
    const res = await user.client.request('POST', '/user-config/dotfiles', { body: { path: '/home/work/.profile', permission: '644', data: 'y' } });
    expectProblem(res, 400, 'generic-bad-request');
    expect(res.json().detail).toBe('Dotfile already exists.');
  });

  it('accepts an absolute path inside /home/work and a nested path', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '/home/work/.config/tool/settings.toml', permission: '640', data: 'a = 1' } });
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.ssh/config', permission: '600', data: 'Host *' } });
    expect(await userDotfiles(user.client)).toEqual([
      { path: '/home/work/.config/tool/settings.toml', permission: '640', data: 'a = 1' },
      { path: '.ssh/config', permission: '600', data: 'Host *' },
    ]);
  });

  it('lets only one of several concurrent POSTs of the same path succeed', async () => {
    const user = await t.createUser();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => user.client.request('POST', '/user-config/dotfiles', { body: { path: '.race', permission: '644', data: `writer ${i}` } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    expect(await userDotfiles(user.client)).toHaveLength(1);
  });

  it.each([
    ['three digits beyond octal', '999'],
    ['four digits', '0644'],
    ['two digits', '64'],
    ['letters', 'rwx'],
    ['an empty string', ''],
  ])('refuses a permission of %s with 400 invalid-api-params and stores nothing', async (_, permission) => {
    const user = await t.createUser();
    const res = await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.x', permission, data: 'x' } });
    expectProblem(res, 400, 'invalid-api-params');
    expect(res.json().data).toHaveProperty('permission');
    expect(await userDotfiles(user.client)).toEqual([]);
  });

  it.each([
    ['a relative path climbing out', '../x'],
    ['a path climbing out through a folder', '.config/../../x'],
    ['an absolute path outside /home/work', '/etc/passwd'],
    ['/home/work/ escaped with ..', '/home/work/../x'],
    ['a NUL byte', '.vim\0rc'],
    ['an empty path', ''],
    ['a folder (trailing slash)', '.config/'],
    ['/home/work itself', '/home/work/'],
    ["Berth's state folder", '.berth/bootstrap.sh'],
    ["Berth's state folder itself", '.berth'],
    ['a reserved folder name', '.ssh'],
    ['a reserved file', '.ssh/authorized_keys'],
    ['a name longer than 255 bytes', `.${'n'.repeat(255)}`],
  ])('refuses %s with 400 and stores nothing', async (_, path) => {
    const user = await t.createUser();
    const res = await user.client.request('POST', '/user-config/dotfiles', { body: { path, permission: '644', data: 'x' } });
    expectProblem(res, 400, 'invalid-api-params');
    expect(res.json().data).toHaveProperty('path');
    expect(await userDotfiles(user.client)).toEqual([]);
  });

  it('refuses a path that would be a folder of an existing dotfile, or inside one', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.tool', permission: '644', data: 'file' } });
    expect((await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.tool/inner', permission: '644', data: 'x' } })).status).toBe(400);
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.dir/inner', permission: '644', data: 'file' } });
    expect((await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.dir', permission: '644', data: 'x' } })).status).toBe(400);
    expect((await userDotfiles(user.client)).map((f: { path: string }) => f.path)).toEqual(['.tool', '.dir/inner']);
  });

  it('refuses data holding a NUL byte with 400', async () => {
    const user = await t.createUser();
    expectProblem(await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.bin', permission: '644', data: 'a\0b' } }), 400, 'invalid-api-params');
    expect(await userDotfiles(user.client)).toEqual([]);
  });

  it.each([
    ['data', { path: '.x', permission: '644' }],
    ['path', { permission: '644', data: 'x' }],
    ['permission', { path: '.x', data: 'x' }],
  ])('refuses a POST without %s with 400 invalid-api-params', async (field, body) => {
    const res = await alice.client.request('POST', '/user-config/dotfiles', { body });
    expectProblem(res, 400, 'invalid-api-params');
    expect(res.json().data).toHaveProperty(field);
  });

  it('refuses the 101st dotfile with 400 and keeps 100', async () => {
    const user = await t.createUser();
    for (let i = 0; i < 100; i++) {
      const res = await user.client.request('POST', '/user-config/dotfiles', { body: { path: `.f${i}`, permission: '644', data: 'x' } });
      expect(res.status).toBe(200);
    }
    expectProblem(await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.f100', permission: '644', data: 'x' } }), 400, 'generic-bad-request');
    expect(await userDotfiles(user.client)).toHaveLength(100);
  });

  it('refuses a dotfile that takes the scope past 64 KiB packed, and stores nothing of it', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.big', permission: '644', data: 'a'.repeat(40 * 1024) } });
    const res = await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.bigger', permission: '644', data: 'b'.repeat(30 * 1024) } });
    expectProblem(res, 400, 'generic-bad-request');
    expect((await userDotfiles(user.client)).map((f: { path: string }) => f.path)).toEqual(['.big']);
  });

  it('refuses a single dotfile of 64 KiB of data (the packed list is larger)', async () => {
    const user = await t.createUser();
    expectProblem(await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.huge', permission: '644', data: 'x'.repeat(64 * 1024) } }), 400, 'generic-bad-request');
    expect(await userDotfiles(user.client)).toEqual([]);
  });

  it('refuses a PATCH that grows the scope past 64 KiB and keeps the old data', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.grow', permission: '644', data: 'small' } });
    expectProblem(await user.client.request('PATCH', '/user-config/dotfiles', { body: { path: '.grow', permission: '644', data: 'x'.repeat(65 * 1024) } }), 400, 'generic-bad-request');
    expect(await userDotfiles(user.client, { path: '.grow' })).toMatchObject({ data: 'small' });
  });

  it('counts multi-byte characters by their UTF-8 size', async () => {
    const user = await t.createUser();
    // 22,000 three-byte characters: 66,000 bytes packed, though only 22,000 characters.
    expectProblem(await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.wide', permission: '644', data: '한'.repeat(22_000) } }), 400, 'generic-bad-request');
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.wide', permission: '644', data: '한'.repeat(20_000) } });
    expect(await userDotfiles(user.client, { path: '.wide' })).toMatchObject({ data: '한'.repeat(20_000) });
  });
});

describe('/user-config/bootstrap-script', () => {
  it('answers "" (a JSON string) before any script is set', async () => {
    const user = await t.createUser();
    const res = await user.client.request('GET', '/user-config/bootstrap-script');
    expect(res.status).toBe(200);
    expect(res.text).toBe('""');
  });

  it('POST {script} answers {} and GET answers the script as a JSON string', async () => {
    const user = await t.createUser();
    const script = '#!/bin/bash\necho "hi"\n';
    const res = await user.client.request('POST', '/user-config/bootstrap-script', { body: { script } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({});
    expect(await user.client.call('GET', '/user-config/bootstrap-script')).toBe(script);
  });

  it('accepts an empty script, which clears it', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/bootstrap-script', { body: { script: 'echo 1' } });
    expect((await user.client.request('POST', '/user-config/bootstrap-script', { body: { script: '' } })).status).toBe(200);
    expect(await user.client.call('GET', '/user-config/bootstrap-script')).toBe('');
  });

  it('accepts exactly 64 KiB and refuses one byte more with 400, keeping the previous script', async () => {
    const user = await t.createUser();
    const max = '#'.repeat(64 * 1024);
    expect((await user.client.request('POST', '/user-config/bootstrap-script', { body: { script: max } })).status).toBe(200);
    expectProblem(await user.client.request('POST', '/user-config/bootstrap-script', { body: { script: `${max}#` } }), 400, 'invalid-api-params');
    expect(await user.client.call('GET', '/user-config/bootstrap-script')).toBe(max);
  });

  it('refuses a POST without script with 400 invalid-api-params', async () => {
    expectProblem(await alice.client.request('POST', '/user-config/bootstrap-script', { body: {} }), 400, 'invalid-api-params');
  });

  it('keeps one user\'s script away from another', async () => {
    const [one, two] = [await t.createUser(), await t.createUser()];
    await one.client.call('POST', '/user-config/bootstrap-script', { body: { script: 'echo one' } });
    expect(await two.client.call('GET', '/user-config/bootstrap-script')).toBe('');
  });
});

describe('delegation with owner_access_key', () => {
  it('lets a superadmin create and read the dotfiles of any user', async () => {
    const user = await t.createUser({ domain: 'cfg-other' });
    await t.admin.call('POST', '/user-config/dotfiles', { body: { path: '.by-super', permission: '644', data: 's', owner_access_key: user.accessKey } });
    expect(await userDotfiles(user.client)).toEqual([{ path: '.by-super', permission: '644', data: 's' }]);
    expect(await userDotfiles(t.admin, { owner_access_key: user.accessKey })).toEqual([{ path: '.by-super', permission: '644', data: 's' }]);
    expect(await userDotfiles(t.admin)).toEqual([]);
  });

  it('lets a domain admin patch and delete the dotfiles of a user of the same domain', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.mine', permission: '644', data: 'v1' } });
    await defaultAdmin.client.call('PATCH', '/user-config/dotfiles', { body: { path: '.mine', permission: '600', data: 'v2', owner_access_key: user.accessKey } });
    expect(await userDotfiles(user.client, { path: '.mine' })).toMatchObject({ data: 'v2', permission: '600' });
    expect(await defaultAdmin.client.call('DELETE', '/user-config/dotfiles', { query: { path: '.mine', owner_access_key: user.accessKey } })).toEqual({ success: true });
    expect(await userDotfiles(user.client)).toEqual([]);
  });

  it("refuses a domain admin acting for another domain's user with 403 generic-forbidden", async () => {
    expectProblem(
      await defaultAdmin.client.request('POST', '/user-config/dotfiles', { body: { path: '.x', permission: '644', data: 'x', owner_access_key: otherUser.accessKey } }),
      403,
      'generic-forbidden',
    );
    expect(await userDotfiles(otherUser.client)).toEqual([]);
  });

  it("refuses a plain user passing someone else's key with 403 generic-forbidden and stores nothing", async () => {
    const victim = await t.createUser();
    expectProblem(
      await alice.client.request('POST', '/user-config/dotfiles', { body: { path: '.evil', permission: '644', data: 'x', owner_access_key: victim.accessKey } }),
      403,
      'generic-forbidden',
    );
    expectProblem(await alice.client.request('GET', '/user-config/dotfiles', { query: { owner_access_key: victim.accessKey } }), 403, 'generic-forbidden');
    expect(await userDotfiles(victim.client)).toEqual([]);
  });

  it('treats a plain user passing their own key as acting for themselves', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.own', permission: '644', data: 'x', owner_access_key: user.accessKey } });
    expect(await userDotfiles(user.client)).toHaveLength(1);
  });

  it('refuses an unknown owner access key with 400 invalid-api-params', async () => {
    expectProblem(
      await t.admin.request('POST', '/user-config/dotfiles', { body: { path: '.x', permission: '644', data: 'x', owner_access_key: 'AKNOSUCHKEY000000000' } }),
      400,
      'invalid-api-params',
    );
  });

  it("lets a superadmin set and read another user's bootstrap script", async () => {
    const user = await t.createUser();
    await t.admin.call('POST', '/user-config/bootstrap-script', { body: { script: 'echo delegated', owner_access_key: user.accessKey } });
    expect(await user.client.call('GET', '/user-config/bootstrap-script')).toBe('echo delegated');
    expect(await t.admin.call('GET', '/user-config/bootstrap-script', { query: { owner_access_key: user.accessKey } })).toBe('echo delegated');
  });

  it("refuses a plain user setting someone else's bootstrap script with 403 generic-forbidden", async () => {
    const victim = await t.createUser();
    expectProblem(await bob.client.request('POST', '/user-config/bootstrap-script', { body: { script: 'rm -rf ~', owner_access_key: victim.accessKey } }), 403, 'generic-forbidden');
    expect(await victim.client.call('GET', '/user-config/bootstrap-script')).toBe('');
  });
});

describe('/domain-config/dotfiles', () => {
  const domainDotfiles = (client: BerthClient, query: Record<string, string> = {}) => client.call('GET', '/domain-config/dotfiles', { query: { domain: 'cfg-dom', ...query } });

  it('round-trips create, list, single item, patch and delete with exact shapes', async () => {
    const path = unique('.domain');
    const created = await domAdmin.client.request('POST', '/domain-config/dotfiles', { body: { domain: 'cfg-dom', path, permission: '644', data: 'd1' } });
    expect(created.status).toBe(200);
    expect(created.json()).toEqual({});
    expect(await domainDotfiles(member.client)).toContainEqual({ path, permission: '644', data: 'd1' });
    expect(await domainDotfiles(member.client, { path })).toEqual({ path, permission: '644', perm: '644', data: 'd1' });
    expect(await domAdmin.client.call('PATCH', '/domain-config/dotfiles', { body: { domain: 'cfg-dom', path, permission: '600', data: 'd2' } })).toEqual({});
    expect(await domainDotfiles(member.client, { path })).toEqual({ path, permission: '600', perm: '600', data: 'd2' });
    expect(await domAdmin.client.call('DELETE', '/domain-config/dotfiles', { query: { domain: 'cfg-dom', path } })).toEqual({ success: true });
    expectProblem(await member.client.request('GET', '/domain-config/dotfiles', { query: { domain: 'cfg-dom', path } }), 404, 'object-not-found');
  });

  it.each(['POST', 'PATCH', 'DELETE'])('refuses a plain user %s with 403 insufficient-privilege', async (method) => {
    const body = { domain: 'cfg-dom', path: '.plain', permission: '644', data: 'x' };
    const res = method === 'DELETE'
      ? await member.client.request(method, '/domain-config/dotfiles', { query: { domain: 'cfg-dom', path: '.plain' } })
      : await member.client.request(method, '/domain-config/dotfiles', { body });
    expectProblem(res, 403, 'insufficient-privilege');
  });

  it("refuses a domain admin changing another domain's dotfiles with 403 generic-forbidden, and stores nothing", async () => {
    await t.admin.call('POST', '/domain-config/dotfiles', { body: { domain: 'cfg-other', path: '.guarded', permission: '644', data: 'keep' } });
    const body = { domain: 'cfg-other', path: '.guarded', permission: '600', data: 'changed' };
    expectProblem(await domAdmin.client.request('POST', '/domain-config/dotfiles', { body: { ...body, path: '.intruder' } }), 403, 'generic-forbidden');
    expectProblem(await domAdmin.client.request('PATCH', '/domain-config/dotfiles', { body }), 403, 'generic-forbidden');
    expectProblem(await domAdmin.client.request('DELETE', '/domain-config/dotfiles', { query: { domain: 'cfg-other', path: '.guarded' } }), 403, 'generic-forbidden');
    expect(await otherUser.client.call('GET', '/domain-config/dotfiles', { query: { domain: 'cfg-other' } })).toEqual([{ path: '.guarded', permission: '644', data: 'keep' }]);
  });

  it("answers 404 to a user reading another domain's dotfiles, as for an unknown domain", async () => {
    expectProblem(await otherUser.client.request('GET', '/domain-config/dotfiles', { query: { domain: 'cfg-dom' } }), 404, 'object-not-found');
    expectProblem(await otherAdmin.client.request('GET', '/domain-config/dotfiles', { query: { domain: 'cfg-dom' } }), 404, 'object-not-found');
    expectProblem(await otherUser.client.request('GET', '/domain-config/dotfiles', { query: { domain: 'no-such-domain' } }), 404, 'object-not-found');
  });

  it('answers 404 to a superadmin naming an unknown domain', async () => {
    expectProblem(await t.admin.request('POST', '/domain-config/dotfiles', { body: { domain: 'no-such-domain', path: '.x', permission: '644', data: 'x' } }), 404, 'object-not-found');
    expectProblem(await t.admin.request('GET', '/domain-config/dotfiles', { query: { domain: 'no-such-domain' } }), 404, 'object-not-found');
  });

  it('refuses a GET without domain with 400 invalid-api-params', async () => {
    expectProblem(await member.client.request('GET', '/domain-config/dotfiles'), 400, 'invalid-api-params');
  });

  it('applies the same rules as the user scope: duplicates, bad permission, traversal', async () => {
    const path = unique('.domain-dup');
    await domAdmin.client.call('POST', '/domain-config/dotfiles', { body: { domain: 'cfg-dom', path, permission: '644', data: 'x' } });
    const dup = await domAdmin.client.request('POST', '/domain-config/dotfiles', { body: { domain: 'cfg-dom', path, permission: '644', data: 'y' } });
    expectProblem(dup, 400, 'generic-bad-request');
    expect(dup.json().detail).toBe('Dotfile already exists.');
    expectProblem(await domAdmin.client.request('POST', '/domain-config/dotfiles', { body: { domain: 'cfg-dom', path: '.p', permission: '8', data: 'x' } }), 400, 'invalid-api-params');
    expectProblem(await domAdmin.client.request('POST', '/domain-config/dotfiles', { body: { domain: 'cfg-dom', path: '../../etc/x', permission: '644', data: 'x' } }), 400, 'invalid-api-params');
    expect((await domainDotfiles(member.client)).filter((f: { path: string }) => f.path === path || f.path === '.p' || f.path === '../../etc/x')).toEqual([
      { path, permission: '644', data: 'x' },
    ]);
  });
});

describe('/group-config/dotfiles', () => {
  it('round-trips create, list, single item, patch and delete with exact shapes (group by id)', async () => {
    const path = unique('.project');
    const created = await domAdmin.client.request('POST', '/group-config/dotfiles', { body: { group: projectId, path, permission: '644', data: 'p1' } });
    expect(created.status).toBe(200);
    expect(created.json()).toEqual({});
    expect(await member.client.call('GET', '/group-config/dotfiles', { query: { group: projectId } })).toContainEqual({ path, permission: '644', data: 'p1' });
    expect(await member.client.call('GET', '/group-config/dotfiles', { query: { group: projectId, path } })).toEqual({ path, permission: '644', perm: '644', data: 'p1' });
    expect(await domAdmin.client.call('PATCH', '/group-config/dotfiles', { body: { group: projectId, path, permission: '755', data: 'p2' } })).toEqual({});
    expect(await member.client.call('GET', '/group-config/dotfiles', { query: { group: projectId, path } })).toEqual({ path, permission: '755', perm: '755', data: 'p2' });
    expect(await domAdmin.client.call('DELETE', '/group-config/dotfiles', { query: { group: projectId, path } })).toEqual({ success: true });
    expectProblem(await member.client.request('GET', '/group-config/dotfiles', { query: { group: projectId, path } }), 404, 'object-not-found');
  });

  it('finds a project by name plus domain', async () => {
    const path = unique('.by-name');
    await domAdmin.client.call('POST', '/group-config/dotfiles', { body: { group: 'cfg-project', domain: 'cfg-dom', path, permission: '644', data: 'n' } });
    expect(await member.client.call('GET', '/group-config/dotfiles', { query: { group: 'cfg-project', domain: 'cfg-dom', path } })).toEqual({ path, permission: '644', perm: '644', data: 'n' });
    expect(await member.client.call('GET', '/group-config/dotfiles', { query: { group: projectId, path } })).toMatchObject({ data: 'n' });
  });

  it.each(['POST', 'PATCH', 'DELETE'])('refuses a plain user %s with 403 insufficient-privilege', async (method) => {
    const res = method === 'DELETE'
      ? await member.client.request(method, '/group-config/dotfiles', { query: { group: projectId, path: '.x' } })
      : await member.client.request(method, '/group-config/dotfiles', { body: { group: projectId, path: '.x', permission: '644', data: 'x' } });
    expectProblem(res, 403, 'insufficient-privilege');
  });

  it("answers 404 to a user who is not a member of the project", async () => {
    expectProblem(await outsider.client.request('GET', '/group-config/dotfiles', { query: { group: projectId } }), 404, 'object-not-found');
    expectProblem(await outsider.client.request('GET', '/group-config/dotfiles', { query: { group: 'cfg-project', domain: 'cfg-dom' } }), 404, 'object-not-found');
    expectProblem(await otherUser.client.request('GET', '/group-config/dotfiles', { query: { group: projectId } }), 404, 'object-not-found');
  });

  it('answers 404 for an unknown project, by id or by name', async () => {
    expectProblem(await t.admin.request('GET', '/group-config/dotfiles', { query: { group: randomUUID() } }), 404, 'object-not-found');
    expectProblem(await t.admin.request('POST', '/group-config/dotfiles', { body: { group: 'no-such-project', domain: 'cfg-dom', path: '.x', permission: '644', data: 'x' } }), 404, 'object-not-found');
  });

  it('lets the domain admin read a project of their domain without being a member', async () => {
    expect(Array.isArray(await domAdmin.client.call('GET', '/group-config/dotfiles', { query: { group: projectId } }))).toBe(true);
  });

  it("keeps a domain admin away from another domain's project: 403 naming the domain, 404 by id", async () => {
    const before = await t.admin.call('GET', '/group-config/dotfiles', { query: { group: projectId } });
    expectProblem(
      await otherAdmin.client.request('POST', '/group-config/dotfiles', { body: { group: 'cfg-project', domain: 'cfg-dom', path: '.intruder', permission: '644', data: 'x' } }),
      403,
      'generic-forbidden',
    );
    expectProblem(await otherAdmin.client.request('POST', '/group-config/dotfiles', { body: { group: projectId, path: '.intruder', permission: '644', data: 'x' } }), 404, 'object-not-found');
    expectProblem(await otherAdmin.client.request('GET', '/group-config/dotfiles', { query: { group: projectId } }), 404, 'object-not-found');
    expect(await t.admin.call('GET', '/group-config/dotfiles', { query: { group: projectId } })).toEqual(before);
  });

  it('refuses a duplicate with 400 "Dotfile already exists."', async () => {
    const path = unique('.project-dup');
    await domAdmin.client.call('POST', '/group-config/dotfiles', { body: { group: projectId, path, permission: '644', data: 'x' } });
    const dup = await t.admin.request('POST', '/group-config/dotfiles', { body: { group: projectId, path, permission: '644', data: 'y' } });
    expectProblem(dup, 400, 'generic-bad-request');
    expect(dup.json().detail).toBe('Dotfile already exists.');
  });

  it('refuses a POST without group with 400 invalid-api-params', async () => {
    expectProblem(await domAdmin.client.request('POST', '/group-config/dotfiles', { body: { path: '.x', permission: '644', data: 'x' } }), 400, 'invalid-api-params');
  });
});

describe('dotfiles and the bootstrap script in a new session', () => {
  let sessionCounter = 0;

  async function runPython(user: TestUser, code: string): Promise<string> {
    const name = `cfg-${++sessionCounter}-${Date.now().toString(36)}`;
    const created = await user.client.request('POST', '/session', { body: { name, image: 'python', group: 'default' } });
    expect(created.status).toBe(200);
    try {
      let result = (await user.client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code } })).result;
      const console: [string, string][] = [...result.console];
      while (result.status === 'continued') {
        result = (await user.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: result.runId, code: '' } })).result;
        console.push(...result.console);
      }
      return console.filter(([kind]) => kind === 'stdout').map(([, text]) => text).join('');
    } finally {
      await user.client.call('DELETE', `/session/${name}`);
    }
  }

  it('writes a user dotfile with its mode and runs the bootstrap script before the kernel is ready', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.vimrc', permission: '600', data: 'set number' } });
    await user.client.call('POST', '/user-config/bootstrap-script', { body: { script: 'printf bootstrapped > /home/work/from-bootstrap.txt\n' } });
    const out = await runPython(
      user,
      "import os, stat; print(open('/home/work/.vimrc').read(), oct(os.stat('/home/work/.vimrc').st_mode & 0o777), open('/home/work/from-bootstrap.txt').read())",
    );
    expect(out.trim()).toBe('set number 0o600 bootstrapped');
  });

  it('has the dotfiles in place when the bootstrap script runs', async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.toolrc', permission: '644', data: 'read at bootstrap' } });
    await user.client.call('POST', '/user-config/bootstrap-script', { body: { script: 'cp /home/work/.toolrc /home/work/seen-by-bootstrap.txt\n' } });
    const out = await runPython(user, "print(open('/home/work/seen-by-bootstrap.txt').read())");
    expect(out.trim()).toBe('read at bootstrap');
  });

  it("gives the kernel's user a nested dotfile and the folders made for it", async () => {
    const user = await t.createUser();
    await user.client.call('POST', '/user-config/dotfiles', { body: { path: '.config/tool/settings.toml', permission: '600', data: 'a = 1' } });
    const out = await runPython(
      user,
      "import os; print(*[os.stat(p).st_uid == os.getuid() for p in ('/home/work/.config', '/home/work/.config/tool', '/home/work/.config/tool/settings.toml')], open('/home/work/.config/tool/settings.toml').read())",
    );
    expect(out.trim()).toBe('True True True a = 1');
  });

  it('lets a user dotfile override a project dotfile at the same path', async () => {
    const user = await t.createUser();
    const defaultProject = (await t.app.db.selectFrom('groups').select('id').where('name', '=', 'default').where('domain_name', '=', 'default').executeTakeFirstOrThrow()).id;
    const shared = unique('.shared');
    const projectOnly = unique('.project-only');
    await t.admin.call('POST', '/group-config/dotfiles', { body: { group: defaultProject, path: shared, permission: '644', data: 'from project' } });
    await t.admin.call('POST', '/group-config/dotfiles', { body: { group: defaultProject, path: projectOnly, permission: '644', data: 'project file' } });
    try {
      await user.client.call('POST', '/user-config/dotfiles', { body: { path: shared, permission: '640', data: 'from user' } });
      const out = await runPython(
        user,
        `import os; print(open('/home/work/${shared}').read(), oct(os.stat('/home/work/${shared}').st_mode & 0o777), open('/home/work/${projectOnly}').read(), sep='|')`,
      );
      expect(out.trim()).toBe('from user|0o640|project file');
    } finally {
      for (const path of [shared, projectOnly]) await t.admin.call('DELETE', '/group-config/dotfiles', { query: { group: defaultProject, path } });
    }
  });
});
