/**
 * Sharing (CONTRACT §5.3, §9.5) and cloning (§9.6): the invitation state machine, the permission matrix of invitees
 * over file operations and transfers, the four shared-folder operations, a read-only shared mount in a session,
 * and a clone followed over /events/background-task whose tree equals its source.
 */
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { openEventStream } from '../helpers/sse';
import { json } from '../../server/db';

const PROBLEM = 'https://errors.berth.dev/';

let t: TestBerth;
let owner: TestUser;
let alice: TestUser;
let bob: TestUser;
let other: TestUser;
let domainAdmin: TestUser;
let member: TestUser;
let projectId: string;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Date.now().toString(36)}`;

function expectProblem(res: { status: number; text: string; json(): any }, status: number, slug: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.json().type).toBe(PROBLEM + slug);
}

async function makeFolder(user: TestUser, body: Record<string, unknown> = {}) {
  const name = (body.name as string) ?? unique('sh');
  const created = await user.client.call('POST', '/folders', { body: { name, ...body } });
  return { id: created.id as string, name, root: path.join(t.app.settings.dataDir, 'vfolders', 'volume1', created.id) };
}

function send(method: string, url: string, headers: Record<string, string> = {}, body?: Buffer): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body ? { ...headers, 'Content-Length': String(body.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function invite(folder: string, emails: string[], perm: 'ro' | 'rw' | 'wd' = 'rw', who = owner) {
  return who.client.request('POST', `/folders/${folder}/invite`, { body: { perm, emails } });
}

async function invitationsOf(user: TestUser): Promise<any[]> {
  return (await user.client.call('GET', '/folders/invitations/list')).invitations;
}

async function shareByInvitation(folder: string, user: TestUser, perm: 'ro' | 'rw' | 'wd', inviter = owner) {
  const res = await invite(folder, [user.email], perm, inviter);
  expect(res.status, res.text).toBe(200);
  const inv = (await invitationsOf(user)).find((i) => i.vfolder_name === folder);
  await user.client.call('POST', '/folders/invitations/accept', { body: { inv_id: inv.id } });
}

beforeAll(async () => {
  t = await startTestBerth();
  owner = await t.createUser();
  alice = await t.createUser();
  bob = await t.createUser();
  other = await t.createUser();
  member = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  projectId = randomUUID();
  await t.app.db.insertInto('groups').values({ id: projectId, name: 'share-project', domain_name: 'default', total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) }).execute();
  await t.app.db.insertInto('association_groups_users').values({ group_id: projectId, user_id: member.uuid }).execute();
});
afterAll(() => t?.stop());

describe('invitations', () => {
  it('walks the state machine: pending → rejected, canceled, accepted', async () => {
    const folder = await makeFolder(owner);
    const first = await invite(folder.name, [alice.email], 'ro');
    expect(first.status, first.text).toBe(200);
    expect(first.json()).toEqual({ invited_ids: [alice.email] });
    // Already pending: not invited again.
    expect((await invite(folder.name, [alice.email], 'ro')).json()).toEqual({ invited_ids: [] });

    const [inv] = await invitationsOf(alice);
    expect(inv).toEqual({
      id: expect.any(String), inviter: owner.email, invitee: alice.email, perm: 'ro', state: 'pending',
      created_at: expect.any(String), modified_at: expect.any(String), vfolder_id: folder.id, vfolder_name: folder.name,
    });
    for (const p of ['/folders/invitations/list-sent', '/folders/invitations/list_sent']) {
      expect((await owner.client.call('GET', p)).invitations.map((i: any) => i.id)).toEqual([inv.id]);
    }
    expect(await invitationsOf(bob)).toEqual([]);

    // Strangers see nothing; the invitee cannot update; the inviter can.
    expectProblem(await bob.client.request('POST', `/folders/invitations/update/${inv.id}`, { body: { perm: 'rw' } }), 404, 'object-not-found');
    expectProblem(await bob.client.request('POST', '/folders/invitations/accept', { body: { inv_id: inv.id } }), 404, 'object-not-found');
    expectProblem(await bob.client.request('DELETE', '/folders/invitations/delete', { body: { inv_id: inv.id } }), 404, 'object-not-found');
    expectProblem(await owner.client.request('POST', '/folders/invitations/accept', { body: { inv_id: inv.id } }), 404, 'object-not-found');
    expect((await alice.client.request('POST', `/folders/invitations/update/${inv.id}`, { body: { perm: 'rw' } })).status).toBe(403);
    expect(await owner.client.call('POST', `/folders/invitations/update/${inv.id}`, { body: { perm: 'rw' } })).toEqual({ msg: `vfolder invitation updated: ${inv.id}.` });
    expect((await invitationsOf(alice))[0].perm).toBe('rw');

    // The invitee rejects: the invitation is over.
    expect(await alice.client.call('DELETE', '/folders/invitations/delete', { body: { inv_id: inv.id } })).toEqual({});
    expect((await t.app.db.selectFrom('vfolder_invitations').select('state').where('id', '=', inv.id).executeTakeFirstOrThrow()).state).toBe('rejected');
    expect(await invitationsOf(alice)).toEqual([]);
    expect((await alice.client.request('POST', '/folders/invitations/accept', { body: { inv_id: inv.id } })).status).toBe(400);
    expect((await owner.client.request('POST', `/folders/invitations/update/${inv.id}`, { body: { perm: 'ro' } })).status).toBe(400);
    expectProblem(await alice.client.request('GET', `/folders/${folder.name}`), 404, 'object-not-found');

    // The inviter cancels.
    expect((await invite(folder.name, [alice.email], 'ro')).json()).toEqual({ invited_ids: [alice.email] });
    const [second] = await invitationsOf(alice);
    expect(await owner.client.call('DELETE', '/folders/invitations/delete', { body: { inv_id: second.id } })).toEqual({});
    expect((await t.app.db.selectFrom('vfolder_invitations').select('state').where('id', '=', second.id).executeTakeFirstOrThrow()).state).toBe('canceled');

    // The invitee accepts: the folder is shared with the invited permission.
    await invite(folder.name, [alice.email], 'ro');
    const [third] = await invitationsOf(alice);
    expect(await alice.client.call('POST', '/folders/invitations/accept', { body: { inv_id: third.id } })).toEqual({});
    const listed = (await alice.client.call('GET', '/folders')).find((f: any) => f.id === folder.id);
    expect(listed).toMatchObject({ name: folder.name, is_owner: false, permission: 'ro' });
    expectProblem(await invite(folder.name, [alice.email], 'rw'), 400, 'vfolder-already-exists');

    // Leaving drops the access again; an owner cannot leave.
    expectProblem(await owner.client.request('POST', `/folders/${folder.name}/leave`, { body: {} }), 400, 'invalid-api-params');
    expect(await alice.client.call('POST', `/folders/${folder.name}/leave`, { body: {} })).toEqual({ msg: 'left the shared vfolder' });
    expectProblem(await alice.client.request('GET', `/folders/${folder.name}`), 404, 'object-not-found');
  });

  it('refuses invitations from non-owners, to dot-folders and project folders; accept refuses a name clash', async () => {
    const folder = await makeFolder(owner);
    await shareByInvitation(folder.name, alice, 'rw');
    expect((await invite(folder.name, [bob.email], 'ro', alice)).status).toBe(403);
    expectProblem(await invite(folder.name, [bob.email], 'ro', bob), 404, 'object-not-found');

    const dot = await makeFolder(owner, { name: `.dot-${Date.now()}` });
    expect((await invite(dot.name, [bob.email])).status).toBe(403);
    const project = await makeFolder(domainAdmin, { group: projectId });
    expect((await invite(project.name, [bob.email], 'ro', domainAdmin)).status).toBe(403);
    expectProblem(await invite(folder.name, ['nobody@example.invalid']), 404, 'object-not-found');

    // Bob already has a folder of that name: accepting is refused and nothing changes.
    await makeFolder(bob, { name: folder.name });
    await invite(folder.name, [bob.email], 'ro');
    const [inv] = await invitationsOf(bob);
    expectProblem(await bob.client.request('POST', '/folders/invitations/accept', { body: { inv_id: inv.id } }), 400, 'vfolder-already-exists');
    expect((await invitationsOf(bob))[0].state).toBe('pending');
    expect(await t.app.db.selectFrom('vfolder_permissions').selectAll().where('user_uuid', '=', bob.uuid).execute()).toEqual([]);
  });
});

describe('permission matrix of shared folders', () => {
  type Op = 'list' | 'read' | 'write' | 'mkdir' | 'delete';
  const OPS: Op[] = ['list', 'read', 'write', 'mkdir', 'delete'];

  async function attempt(user: TestUser, folder: { name: string; root: string }, op: Op): Promise<number> {
    switch (op) {
      case 'list':
        return (await user.client.request('GET', `/folders/${folder.name}/files`, { query: { path: '' } })).status;
      case 'read': {
        const res = await user.client.request('POST', `/folders/${folder.name}/request-download`, { body: { path: 'file.txt' } });
        if (res.status !== 200) return res.status;
        const got = await send('GET', `${res.json().url}?token=${res.json().token}`);
        if (got.status === 200) expect(got.body.toString()).toBe('content');
        return got.status;
      }
      case 'write': {
        const res = await user.client.request('POST', `/folders/${folder.name}/request-upload`, { body: { path: 'up.txt', size: 2 } });
        if (res.status !== 200) return res.status;
        const put = await send('PATCH', `${res.json().url}?token=${res.json().token}`, { 'Tus-Resumable': '1.0.0', 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0' }, Buffer.from('up'));
        return put.status === 204 ? 200 : put.status;
      }
      case 'mkdir':
        return (await user.client.request('POST', `/folders/${folder.name}/mkdir`, { body: { path: 'newdir' } })).status;
      case 'delete':
        return (await user.client.request('DELETE', `/folders/${folder.name}/delete-files`, { body: { files: ['file.txt'] } })).status;
    }
  }

  const ACTORS: Record<string, { user: () => TestUser; perm?: 'ro' | 'rw' | 'wd'; expect: Record<Op, number> }> = {
    'invitee ro': { user: () => alice, perm: 'ro', expect: { list: 200, read: 200, write: 403, mkdir: 403, delete: 403 } },
    'invitee rw': { user: () => bob, perm: 'rw', expect: { list: 200, read: 200, write: 200, mkdir: 200, delete: 403 } },
    'invitee wd': { user: () => member, perm: 'wd', expect: { list: 200, read: 200, write: 200, mkdir: 200, delete: 200 } },
    'other user': { user: () => other, expect: { list: 404, read: 404, write: 404, mkdir: 404, delete: 404 } },
    owner: { user: () => owner, expect: { list: 200, read: 200, write: 200, mkdir: 200, delete: 200 } },
  };

  for (const [actor, spec] of Object.entries(ACTORS)) {
    for (const op of OPS) {
      it(`${actor}: ${op} → ${spec.expect[op]}`, async () => {
        const folder = await makeFolder(owner);
        writeFileSync(path.join(folder.root, 'file.txt'), 'content');
        if (spec.perm) await shareByInvitation(folder.name, spec.user(), spec.perm);
        const before = readdirSync(folder.root).sort();
        expect(await attempt(spec.user(), folder, op)).toBe(spec.expect[op]);
        if (spec.expect[op] !== 200) expect(readdirSync(folder.root).sort()).toEqual(before);
        else if (op === 'write') expect(readFileSync(path.join(folder.root, 'up.txt'), 'utf8')).toBe('up');
        else if (op === 'mkdir') expect(lstatSync(path.join(folder.root, 'newdir')).isDirectory()).toBe(true);
        else if (op === 'delete') expect(existsSync(path.join(folder.root, 'file.txt'))).toBe(false);
      });
    }
  }

  it('revoking a share (perm null) stops a token issued before', async () => {
    const folder = await makeFolder(owner);
    writeFileSync(path.join(folder.root, 'file.txt'), 'content');
    await shareByInvitation(folder.name, alice, 'ro');
    const shared = await owner.client.call('GET', '/folders/_/shared', { query: { vfolder_id: folder.id } });
    expect(shared).toEqual({ shared: [{ vfolder_id: folder.id, vfolder_name: folder.name, status: 'ready', owner: owner.uuid, type: 'user', shared_to: { uuid: alice.uuid, email: alice.email }, perm: 'ro' }] });
    const token = await alice.client.call('POST', `/folders/${folder.name}/request-download`, { body: { path: 'file.txt' } });
    expect((await send('GET', `${token.url}?token=${token.token}`)).status).toBe(200);
    expect((await alice.client.request('POST', '/folders/_/shared', { body: { vfolder: folder.id, user: alice.uuid, perm: 'rw' } })).status).toBe(403);
    expect(await owner.client.call('POST', '/folders/_/shared', { body: { vfolder: folder.id, user: alice.uuid, perm: null } })).toEqual({ msg: 'shared vfolder permission updated' });
    expect((await send('GET', `${token.url}?token=${token.token}`)).status).toBe(404);
    expect((await owner.client.call('GET', '/folders/_/shared', { query: { vfolder_id: folder.id } })).shared).toEqual([]);
  });
});

describe('project folders: share, unshare, update shared permission', () => {
  it('an admin shares with a project member, changes the permission, and unshares', async () => {
    const folder = await makeFolder(domainAdmin, { group: projectId, permission: 'rw' });
    writeFileSync(path.join(folder.root, 'file.txt'), 'content');
    // Plain users may not; user folders are not shared this way; non-members are refused.
    expect((await member.client.request('POST', `/folders/${folder.name}/share`, { body: { permission: 'ro', emails: [member.email] } })).status).toBe(403);
    const userFolder = await makeFolder(owner);
    expectProblem(await owner.client.request('POST', `/folders/${userFolder.name}/share`, { body: { emails: [alice.email] } }), 400, 'invalid-api-params');
    expectProblem(await domainAdmin.client.request('POST', `/folders/${folder.name}/share`, { body: { emails: [other.email] } }), 404, 'object-not-found');

    expect(await domainAdmin.client.call('POST', `/folders/${folder.name}/share`, { body: { permission: 'ro', emails: [member.email] } })).toEqual({ shared_emails: [member.email] });
    const listed = await domainAdmin.client.call('GET', '/folders/_/shared', { query: { vfolder_id: folder.id } });
    expect(listed.shared).toEqual([{ vfolder_id: folder.id, vfolder_name: folder.name, status: 'ready', owner: projectId, type: 'project', shared_to: { uuid: member.uuid, email: member.email }, perm: 'ro' }]);
    // The member's own entry now rules: read-only.
    expect((await member.client.request('POST', `/folders/${folder.name}/mkdir`, { body: { path: 'x' } })).status).toBe(403);
    expect(await domainAdmin.client.call('POST', '/folders/_/shared', { body: { vfolder: folder.id, user: member.uuid, perm: 'rw' } })).toEqual({ msg: 'shared vfolder permission updated' });
    expect((await member.client.request('POST', `/folders/${folder.name}/mkdir`, { body: { path: 'x' } })).status).toBe(200);
    expect(await domainAdmin.client.call('DELETE', `/folders/${folder.name}/unshare`, { body: { emails: [member.email] } })).toEqual({ unshared_emails: [member.email] });
    expect((await domainAdmin.client.call('GET', '/folders/_/shared', { query: { vfolder_id: folder.id } })).shared).toEqual([]);
    expect(await domainAdmin.client.call('POST', `/folders/${folder.name}/share`, { body: { perm: 'ro', emails: [member.email] } })).toEqual({ shared_emails: [member.email] });
    expect(await domainAdmin.client.call('POST', `/folders/${folder.name}/unshare`, { body: { emails: [member.email] } })).toEqual({ unshared_emails: [member.email] });
    // A member cannot leave a project folder.
    expectProblem(await member.client.request('POST', `/folders/${folder.name}/leave`, { body: {} }), 400, 'invalid-api-params');
  });
});

describe('session mounts of shared folders', () => {
  it('an invitee with ro mounts the folder read-only and cannot write', async () => {
    const folder = await makeFolder(owner);
    writeFileSync(path.join(folder.root, 'readable.txt'), 'read me');
    await shareByInvitation(folder.name, alice, 'ro');
    // Asking for more than the share gives is refused.
    const tooMuch = await alice.client.request('POST', '/session', { body: { name: unique('s'), image: 'python', group: 'default', config: { mounts: [folder.name], mount_options: { [folder.name]: { permission: 'rw' } } } } });
    expect(tooMuch.status, tooMuch.text).toBe(400);
    const name = unique('sess');
    const res = await alice.client.request('POST', '/session', { body: { name, image: 'python', group: 'default', config: { mounts: [folder.name] } } });
    expect(res.status, res.text).toBe(200);
    try {
      const code = [
        'import errno',
        `p = '/home/work/${folder.name}'`,
        `print(open(p + '/readable.txt').read())`,
        'try:',
        `    open(p + '/new.txt', 'w').write('x')`,
        `    print('wrote')`,
        'except OSError as e:',
        `    print(errno.errorcode[e.errno])`,
      ].join('\n');
      let result = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code } })).result;
      const out: string[] = result.console.map((c: [string, string]) => c[1]);
      while (result.status === 'continued') {
        result = (await alice.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: result.runId, code: '' } })).result;
        out.push(...result.console.map((c: [string, string]) => c[1]));
      }
      expect(out.join('')).toBe('read me\nEROFS\n');
      expect(readdirSync(folder.root)).toEqual(['readable.txt']);
    } finally {
      await alice.client.call('DELETE', `/session/${name}`);
    }
  });
});

describe('clone', () => {
  function treeOf(root: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (dir: string, prefix: string) => {
      for (const name of readdirSync(dir).sort()) {
        const p = path.join(dir, name);
        const st = lstatSync(p);
        const mode = (st.mode & 0o7777).toString(8);
        if (st.isSymbolicLink()) out[prefix + name] = `link ${readlinkSync(p)}`;
        else if (st.isDirectory()) {
          out[prefix + name] = `dir ${mode}`;
          walk(p, `${prefix}${name}/`);
        } else out[prefix + name] = `file ${mode} ${st.size} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`;
      }
    };
    walk(root, '');
    return out;
  }

  it('refuses a folder that is not cloneable, and a clone over the quota', async () => {
    const source = await makeFolder(owner, { cloneable: false });
    expectProblem(await owner.client.request('POST', `/folders/${source.name}/clone`, { body: { target_name: unique('c'), cloneable: false } }), 403, 'generic-forbidden');
    const big = await makeFolder(bob, { cloneable: true });
    writeFileSync(path.join(big.root, 'big.bin'), Buffer.alloc(4000, 1));
    await shareByInvitation(big.name, member, 'ro', bob);
    await member.client.call('POST', '/folders/_/quota', { body: { folder_host: 'local:volume1', id: (await member.client.call('POST', '/folders', { body: { name: unique('mine') } })).id, input: { size_bytes: 1000 } } });
    const target = unique('c');
    expectProblem(await member.client.request('POST', `/folders/${big.name}/clone`, { body: { target_name: target, cloneable: false } }), 412, 'quota-exceeded');
    expect((await member.client.call('GET', '/folders')).some((f: any) => f.name === target)).toBe(false);
  });

  it('copies the tree file for file, with progress ending in bgtask_done', async () => {
    const source = await makeFolder(owner, { cloneable: true });
    mkdirSync(path.join(source.root, 'dir', 'nested'), { recursive: true });
    writeFileSync(path.join(source.root, 'a.txt'), 'alpha');
    writeFileSync(path.join(source.root, 'dir', 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(path.join(source.root, 'dir', 'run.sh'), 0o755);
    writeFileSync(path.join(source.root, 'dir', 'nested', 'data.bin'), Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251)));
    writeFileSync(path.join(source.root, 'dir', 'private'), 'p');
    chmodSync(path.join(source.root, 'dir', 'private'), 0o600);
    for (let i = 0; i < 30; i++) writeFileSync(path.join(source.root, 'dir', `f${i}.txt`), `file ${i}`);
    symlinkSync('../a.txt', path.join(source.root, 'dir', 'rel-link'));
    symlinkSync('/etc/passwd', path.join(source.root, 'abs-link'));
    chmodSync(path.join(source.root, 'dir', 'nested'), 0o750);

    const targetName = unique('clone');
    const res = await alice.client.request('POST', `/folders/${source.name}/clone`, { body: { target_name: targetName, cloneable: false } });
    expect(res.status).toBe(404); // alice cannot see it
    await shareByInvitation(source.name, alice, 'ro');
    const cloned = await alice.client.request('POST', `/folders/${source.name}/clone`, { body: { target_name: targetName, cloneable: true, usage_mode: 'data', permission: 'rw' } });
    expect(cloned.status, cloned.text).toBe(200);
    const body = cloned.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/), name: targetName, host: 'local:volume1', usage_mode: 'data', permission: 'rw', creator: alice.email,
      ownership_type: 'user', user: alice.uuid, group: null, cloneable: true, bgtask_id: expect.any(String),
    });
    const stream = await openEventStream(t.url, alice, '/events/background-task', { task_id: body.bgtask_id });
    expect(stream.status).toBe(200);
    const done = await stream.next((e) => e.event.startsWith('bgtask_') && e.event !== 'bgtask_updated', 30_000);
    expect(done.event).toBe('bgtask_done');
    stream.close();
    const task = await t.app.db.selectFrom('bgtasks').selectAll().where('id', '=', body.bgtask_id).executeTakeFirstOrThrow();
    expect(task.status).toBe('done');
    expect(task.total_progress).toBe(36);
    expect(task.current_progress).toBe(36);

    const targetRoot = path.join(t.app.settings.dataDir, 'vfolders', 'volume1', body.id);
    expect(treeOf(targetRoot)).toEqual(treeOf(source.root));
    expect(treeOf(targetRoot)['abs-link']).toBe('link /etc/passwd');
    expect((await alice.client.call('GET', `/folders/${targetName}`)).status).toBe('ready');
    expect((await owner.client.call('GET', `/folders/${source.name}`)).status).toBe('ready');
  });
});
