/**
 * Folders mounted into sessions (CONTRACT §7.1 config.mounts, mount_map, mount_options): a rw mount writes files
 * the folder API then lists; a ro mount cannot write (EROFS inside the sandbox); bad mounts are refused with 400
 * before anything is stored.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { json } from '../../server/db';

const PROBLEM = 'https://errors.berth.dev/';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let domainAdmin: TestUser;

function expectProblem(res: { status: number; json(): any }, status: number, slug: string) {
  expect(res.status, JSON.stringify(res.json())).toBe(status);
  expect(res.json().type).toBe(PROBLEM + slug);
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Date.now().toString(36)}`;

async function makeFolder(user: TestUser, body: Record<string, unknown> = {}) {
  const name = unique('mnt');
  const created = await user.client.call('POST', '/folders', { body: { name, cloneable: false, ...body } });
  return { id: created.id as string, name, root: path.join(t.app.settings.dataDir, 'vfolders', 'volume1', created.id) };
}

async function startSession(user: TestUser, config: Record<string, unknown>) {
  const name = unique('sess');
  const res = await user.client.request('POST', '/session', { body: { name, image: 'python', group: 'default', config } });
  return { name, res };
}

async function run(user: TestUser, session: string, code: string): Promise<string> {
  let result = (await user.client.call('POST', `/session/${session}`, { body: { mode: 'query', runId: null, code } })).result;
  const out: string[] = result.console.map((c: [string, string]) => c[1]);
  while (result.status === 'continued') {
    result = (await user.client.call('POST', `/session/${session}`, { body: { mode: 'continue', runId: result.runId, code: '' } })).result;
    out.push(...result.console.map((c: [string, string]) => c[1]));
  }
  return out.join('');
}

async function sessionCount(): Promise<number> {
  return Number((await t.app.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
});
afterAll(() => t?.stop());

describe('mounting folders into sessions', () => {
  it('a rw mount writes a file the folder API then lists, owned so the session can write', async () => {
    const folder = await makeFolder(alice);
    writeFileSync(path.join(folder.root, 'from-api.txt'), 'hello from outside');
    const { name, res } = await startSession(alice, { mounts: [folder.name] });
    expect(res.status, res.text).toBe(200);
    try {
      const row = await t.app.db.selectFrom('sessions').select('mounts').where('name', '=', name).executeTakeFirstOrThrow();
      expect(row.mounts).toEqual([{ id: expect.any(String), name: folder.name, kernelPath: `/home/work/${folder.name}`, permission: 'rw' }]);
      const out = await run(alice, name, [
        `p = '/home/work/${folder.name}'`,
        `print(open(p + '/from-api.txt').read())`,
        `open(p + '/from-session.txt', 'w').write('written inside')`,
        `import os; os.makedirs(p + '/made/in/session')`,
        `print('ok')`,
      ].join('\n'));
      expect(out).toBe('hello from outside\nok\n');
      const files = await alice.client.call('GET', `/folders/${folder.name}/files`, { query: { path: '' } });
      expect(files.items.map((i: any) => i.name)).toEqual(['from-api.txt', 'from-session.txt', 'made']);
      expect(files.items.find((i: any) => i.name === 'from-session.txt')).toMatchObject({ type: 'FILE', size: 14 });
      expect(readFileSync(path.join(folder.root, 'from-session.txt'), 'utf8')).toBe('written inside');
      if (process.getuid?.() === 0) expect(statSync(path.join(folder.root, 'from-session.txt')).uid).toBe(t.app.settings.kernelUid);
      // Mounted in a live session: it cannot be deleted.
      expectProblem(await alice.client.request('DELETE', `/folders/${folder.name}`), 400, 'vfolder-operation-failed');
      expect((await alice.client.call('GET', `/folders/${folder.name}`)).last_used).not.toBeNull();
    } finally {
      await alice.client.call('DELETE', `/session/${name}`);
    }
  });

  it('a ro mount cannot write (EROFS inside the sandbox), and nothing appears in the folder', async () => {
    const folder = await makeFolder(alice);
    writeFileSync(path.join(folder.root, 'readable.txt'), 'read me');
    const { name, res } = await startSession(alice, { mounts: [folder.id], mount_options: { [folder.id]: { permission: 'ro' } } });
    expect(res.status, res.text).toBe(200);
    try {
      const out = await run(alice, name, [
        'import errno',
        `p = '/home/work/${folder.name}'`,
        `print(open(p + '/readable.txt').read())`,
        'try:',
        `    open(p + '/new.txt', 'w').write('x')`,
        `    print('wrote')`,
        'except OSError as e:',
        `    print(errno.errorcode[e.errno])`,
      ].join('\n'));
      expect(out).toBe('read me\nEROFS\n');
      expect((await alice.client.call('GET', `/folders/${folder.name}/files`, { query: { path: '' } })).items.map((i: any) => i.name)).toEqual(['readable.txt']);
    } finally {
      await alice.client.call('DELETE', `/session/${name}`);
    }
  });

  it('a folder whose permission is ro mounts read-only for its owner by default; mount_map places it', async () => {
    const folder = await makeFolder(alice, { permission: 'ro' });
    const { name, res } = await startSession(alice, { mount_map: { [folder.name]: '/home/work/custom/place' } });
    expect(res.status, res.text).toBe(200);
    try {
      const out = await run(alice, name, [
        'import errno, os',
        `print(os.path.isdir('/home/work/custom/place'), os.path.exists('/home/work/${folder.name}'))`,
        'try:',
        `    open('/home/work/custom/place/x', 'w')`,
        'except OSError as e:',
        `    print(errno.errorcode[e.errno])`,
      ].join('\n'));
      expect(out).toBe('True False\nEROFS\n');
      const row = await t.app.db.selectFrom('sessions').select('mounts').where('name', '=', name).executeTakeFirstOrThrow();
      expect(row.mounts).toEqual([expect.objectContaining({ kernelPath: '/home/work/custom/place', permission: 'ro' })]);
    } finally {
      await alice.client.call('DELETE', `/session/${name}`);
    }
  });

  it('a project member mounts a project folder with the project permission', async () => {
    const projectId = randomUUID();
    await t.app.db.insertInto('groups').values({ id: projectId, name: unique('proj'), domain_name: 'default', total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) }).execute();
    await t.app.db.insertInto('association_groups_users').values({ group_id: projectId, user_id: bob.uuid }).execute();
    const folder = await makeFolder(domainAdmin, { group: projectId, permission: 'ro' });
    expectProblem((await startSession(bob, { mounts: [folder.name], mount_options: { [folder.name]: { permission: 'rw' } } })).res, 400, 'vfolder-permission-error');
    const { name, res } = await startSession(bob, { mounts: [folder.name] });
    expect(res.status, res.text).toBe(200);
    try {
      const out = await run(bob, name, [
        'import errno',
        'try:',
        `    open('/home/work/${folder.name}/x', 'w')`,
        'except OSError as e:',
        `    print(errno.errorcode[e.errno])`,
      ].join('\n'));
      expect(out).toBe('EROFS\n');
    } finally {
      await bob.client.call('DELETE', `/session/${name}`);
    }
  });
});

describe('refused mounts store nothing', () => {
  it.each([
    ['an unknown folder', () => ({ mounts: ['no-such-folder'] }), 400, 'invalid-api-params'],
    ['an unknown folder id', () => ({ mounts: [randomUUID()] }), 400, 'invalid-api-params'],
    ['a mount_map path outside /home/work', (f: string) => ({ mounts: [f], mount_map: { [f]: '/etc/evil' } }), 400, 'invalid-api-params'],
    ['a mount_map path climbing out', (f: string) => ({ mount_map: { [f]: '/home/work/../../etc' } }), 400, 'invalid-api-params'],
    ['a mount_map path equal to /home/work', (f: string) => ({ mount_map: { [f]: '/home/work' } }), 400, 'invalid-api-params'],
    ['an unknown mount permission', (f: string) => ({ mounts: [f], mount_options: { [f]: { permission: 'xx' } } }), 400, 'invalid-api-params'],
    ['an unsupported mount type', (f: string) => ({ mounts: [f], mount_options: { [f]: { type: 'tmpfs' } } }), 400, 'invalid-api-params'],
  ])('%s → 400', async (_, config, status, slug) => {
    const folder = await makeFolder(alice);
    const before = await sessionCount();
    expectProblem((await startSession(alice, (config as (f: string) => Record<string, unknown>)(folder.name))).res, status as number, slug as string);
    expect(await sessionCount()).toBe(before);
  });

  it('another user\'s folder is unknown to the session owner', async () => {
    const folder = await makeFolder(alice);
    const before = await sessionCount();
    expectProblem((await startSession(bob, { mounts: [folder.id] })).res, 400, 'invalid-api-params');
    expect(await sessionCount()).toBe(before);
  });

  it('a folder in the trash cannot be mounted', async () => {
    const folder = await makeFolder(alice);
    await alice.client.call('DELETE', `/folders/${folder.name}`);
    const before = await sessionCount();
    expectProblem((await startSession(alice, { mounts: [folder.id] })).res, 400, 'vfolder-filter-status-failed');
    expect(await sessionCount()).toBe(before);
  });

  it('two folders cannot share or nest a mount path', async () => {
    const a = await makeFolder(alice);
    const b = await makeFolder(alice);
    const before = await sessionCount();
    expectProblem((await startSession(alice, { mount_map: { [a.name]: 'shared', [b.name]: 'shared/inner' } })).res, 400, 'invalid-api-params');
    expect(await sessionCount()).toBe(before);
  });

  it('a user shared ro cannot ask for a rw mount', async () => {
    const folder = await makeFolder(alice);
    await t.app.db.insertInto('vfolder_permissions').values({ vfolder_id: folder.id.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'), user_uuid: bob.uuid, permission: 'ro' }).execute();
    const before = await sessionCount();
    expectProblem((await startSession(bob, { mounts: [folder.id], mount_options: { [folder.id]: { permission: 'rw' } } })).res, 400, 'vfolder-permission-error');
    expect(await sessionCount()).toBe(before);
  });

  it('a writable mount of a folder whose scope is over its limit is refused with 412', async () => {
    const carol = await t.createUser();
    const folder = await makeFolder(carol);
    writeFileSync(path.join(folder.root, 'big'), Buffer.alloc(4096));
    await carol.client.call('POST', '/folders/_/quota', { body: { folder_host: 'local:volume1', id: folder.id, input: { size_bytes: 1024 } } });
    const before = await sessionCount();
    expectProblem((await startSession(carol, { mounts: [folder.name] })).res, 412, 'quota-exceeded');
    expect(await sessionCount()).toBe(before);
    // Read-only, it still mounts.
    const { name, res } = await startSession(carol, { mounts: [folder.name], mount_options: { [folder.name]: { perm: 'ro' } } });
    expect(res.status, res.text).toBe(200);
    await carol.client.call('DELETE', `/session/${name}`);
  });
});
