/**
 * The permission matrix over folder operations (CONTRACT §5.3): who may read, write, delete files in, and manage a
 * folder. Each cell runs on a fresh folder and checks both the answer and that a refused call changed nothing.
 *
 * To extend: add an actor to ACTORS (how it gets access: a user, plus an optional setup on the new folder) and a
 * column to each row of MATRIX.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { json } from '../../server/db';

const PROBLEM = 'https://errors.berth.dev/';

let t: TestBerth;
let owner: TestUser;
let other: TestUser;
let member: TestUser;
let domainAdmin: TestUser;
let foreignAdmin: TestUser;
let superadmin: TestUser;
let sharedRo: TestUser;
let sharedRw: TestUser;
let sharedWd: TestUser;
let projectId: string;

const toUuid = (hex: string) => hex.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

beforeAll(async () => {
  t = await startTestBerth();
  await t.createDomain('elsewhere');
  owner = await t.createUser();
  other = await t.createUser();
  member = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  foreignAdmin = await t.createUser({ role: 'admin', isAdmin: true, domain: 'elsewhere' });
  superadmin = await t.createUser({ role: 'superadmin', domain: 'elsewhere' });
  sharedRo = await t.createUser();
  sharedRw = await t.createUser();
  sharedWd = await t.createUser();
  projectId = randomUUID();
  await t.app.db.insertInto('groups').values({ id: projectId, name: 'matrix-project', domain_name: 'default', total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) }).execute();
  await t.app.db.insertInto('association_groups_users').values({ group_id: projectId, user_id: member.uuid }).execute();
  // `other` and the shared users are not members of the matrix project (they are of `default`, like everyone).
});
afterAll(() => t?.stop());

type Kind = 'user' | 'group-ro' | 'group-rw' | 'group-wd';

interface Folder {
  id: string;
  root: string;
}

let counter = 0;
async function makeFolder(kind: Kind): Promise<Folder> {
  const name = `m-${++counter}`;
  const body =
    kind === 'user'
      ? await owner.client.call('POST', '/folders', { body: { name, cloneable: false } })
      : await domainAdmin.client.call('POST', '/folders', { body: { name, group: projectId, permission: kind.slice(6), cloneable: false } });
  const root = path.join(t.app.settings.dataDir, 'vfolders', 'volume1', body.id);
  writeFileSync(path.join(root, 'file.txt'), 'content');
  mkdirSync(path.join(root, 'dir'));
  return { id: body.id, root };
}

async function share(folder: Folder, user: TestUser, permission: 'ro' | 'rw' | 'wd') {
  await t.app.db.insertInto('vfolder_permissions').values({ vfolder_id: toUuid(folder.id), user_uuid: user.uuid, permission }).execute();
}

interface Actor {
  user: () => TestUser;
  setup?: (folder: Folder) => Promise<void>;
}

const ACTORS: Record<string, Actor> = {
  owner: { user: () => owner },
  other: { user: () => other },
  member: { user: () => member },
  domainAdmin: { user: () => domainAdmin },
  foreignAdmin: { user: () => foreignAdmin },
  superadmin: { user: () => superadmin },
  sharedRo: { user: () => sharedRo, setup: (f) => share(f, sharedRo, 'ro') },
  sharedRw: { user: () => sharedRw, setup: (f) => share(f, sharedRw, 'rw') },
  sharedWd: { user: () => sharedWd, setup: (f) => share(f, sharedWd, 'wd') },
};

interface Operation {
  call: (user: TestUser, folder: Folder) => Promise<{ status: number; json(): any }>;
  /** What the operation leaves on disk when it succeeds (checked unchanged when refused). */
  changed: (folder: Folder) => boolean;
}

const OPERATIONS: Record<string, Operation> = {
  info: { call: (u, f) => u.client.request('GET', `/folders/${f.id}`), changed: () => false },
  files: { call: (u, f) => u.client.request('GET', `/folders/${f.id}/files`, { query: { path: '' } }), changed: () => false },
  mkdir: {
    call: (u, f) => u.client.request('POST', `/folders/${f.id}/mkdir`, { body: { path: 'made', parents: true, exist_ok: false } }),
    changed: (f) => existsSync(path.join(f.root, 'made')),
  },
  moveFile: {
    call: (u, f) => u.client.request('POST', `/folders/${f.id}/move-file`, { body: { src: 'file.txt', dst: 'dir/file.txt' } }),
    changed: (f) => !existsSync(path.join(f.root, 'file.txt')),
  },
  renameFile: {
    call: (u, f) => u.client.request('POST', `/folders/${f.id}/rename-file`, { body: { target_path: 'file.txt', new_name: 'renamed.txt', is_dir: false } }),
    changed: (f) => !existsSync(path.join(f.root, 'file.txt')),
  },
  deleteFiles: {
    call: (u, f) => u.client.request('DELETE', `/folders/${f.id}/delete-files`, { body: { files: ['file.txt'], recursive: false } }),
    changed: (f) => !existsSync(path.join(f.root, 'file.txt')),
  },
  updateOptions: {
    call: (u, f) => u.client.request('POST', `/folders/${f.id}/update-options`, { body: { cloneable: true } }),
    changed: () => false,
  },
  rename: {
    call: (u, f) => u.client.request('POST', `/folders/${f.id}/rename`, { body: { new_name: `renamed-${++counter}` } }),
    changed: () => false,
  },
  delete: {
    call: (u, f) => u.client.request('DELETE', `/folders/${f.id}`),
    changed: (f) => !existsSync(f.root),
  },
};

type Outcome = 200 | 403 | 404;
type Row = Record<keyof typeof OPERATIONS, Outcome>;

const R = (...o: Outcome[]): Row => Object.fromEntries(Object.keys(OPERATIONS).map((k, i) => [k, o[i]])) as Row;
//                     info files mkdir move renameF deleteF options rename delete
const ALL = R(200, 200, 200, 200, 200, 200, 200, 200, 200);
const NONE = R(404, 404, 404, 404, 404, 404, 404, 404, 404);
const READ = R(200, 200, 403, 403, 403, 403, 403, 403, 403);
const WRITE = R(200, 200, 200, 200, 200, 403, 403, 403, 403);
const WRITE_DELETE = R(200, 200, 200, 200, 200, 200, 403, 403, 403);

const MATRIX: Record<Kind, Record<keyof typeof ACTORS, Row>> = {
  user: { owner: ALL, other: NONE, member: NONE, domainAdmin: ALL, foreignAdmin: NONE, superadmin: ALL, sharedRo: READ, sharedRw: WRITE, sharedWd: WRITE_DELETE },
  'group-ro': { owner: NONE, other: NONE, member: READ, domainAdmin: ALL, foreignAdmin: NONE, superadmin: ALL, sharedRo: READ, sharedRw: WRITE, sharedWd: WRITE_DELETE },
  'group-rw': { owner: NONE, other: NONE, member: WRITE, domainAdmin: ALL, foreignAdmin: NONE, superadmin: ALL, sharedRo: READ, sharedRw: WRITE, sharedWd: WRITE_DELETE },
  'group-wd': { owner: NONE, other: NONE, member: WRITE_DELETE, domainAdmin: ALL, foreignAdmin: NONE, superadmin: ALL, sharedRo: READ, sharedRw: WRITE, sharedWd: WRITE_DELETE },
};

const cells = (Object.keys(MATRIX) as Kind[]).flatMap((kind) =>
  Object.keys(ACTORS).flatMap((actor) => Object.keys(OPERATIONS).map((op) => [kind, actor, op, MATRIX[kind][actor][op]] as const)),
);

describe('permission matrix', () => {
  it.each(cells)('%s folder, %s, %s → %i', async (kind, actor, op, expected) => {
    const folder = await makeFolder(kind);
    await ACTORS[actor].setup?.(folder);
    const before = readdirSync(folder.root).sort();
    const res = await OPERATIONS[op].call(ACTORS[actor].user(), folder);
    expect(res.status, JSON.stringify(res.json())).toBe(expected);
    if (expected === 200) {
      if (op === 'mkdir') expect(res.json().results.success).toHaveLength(1);
    } else {
      expect(res.json().type).toBe(PROBLEM + (expected === 404 ? 'object-not-found' : 'generic-forbidden'));
      expect(OPERATIONS[op].changed(folder)).toBe(false);
      expect(readdirSync(folder.root).sort()).toEqual(before);
    }
  });
});

describe('access details', () => {
  it('a domain admin has no authority over a superadmin\'s folder in the same domain', async () => {
    const boss = await t.createUser({ role: 'superadmin' });
    const body = await boss.client.call('POST', '/folders', { body: { name: 'boss-folder', cloneable: false } });
    expect((await domainAdmin.client.request('GET', `/folders/${body.id}`)).status).toBe(404);
    expect((await t.admin.request('GET', `/folders/${body.id}`)).status).toBe(200);
  });

  it('listings show each caller their own permission', async () => {
    const folder = await makeFolder('group-rw');
    await share(folder, sharedRo, 'ro');
    const asMember = (await member.client.call('GET', '/folders')).find((f: any) => f.id === folder.id);
    expect(asMember).toMatchObject({ permission: 'rw', is_owner: false });
    const asAdmin = (await domainAdmin.client.call('GET', '/folders')).find((f: any) => f.id === folder.id);
    expect(asAdmin).toMatchObject({ permission: 'wd', is_owner: true });
    // A per-user permission overrides the project's for that user.
    const asShared = (await sharedRo.client.call('GET', '/folders')).find((f: any) => f.id === folder.id);
    expect(asShared).toMatchObject({ permission: 'ro', is_owner: false });
    expect((await other.client.call('GET', '/folders')).some((f: any) => f.id === folder.id)).toBe(false);
  });

  it('a member reaches a project folder by name, and cannot create a folder of the same name', async () => {
    const name = `shared-name-${++counter}`;
    await domainAdmin.client.call('POST', '/folders', { body: { name, group: projectId, cloneable: false } });
    expect((await member.client.call('GET', `/folders/${name}`)).name).toBe(name);
    const clash = await member.client.request('POST', '/folders', { body: { name, cloneable: false } });
    expect(clash.status).toBe(400);
    expect(clash.json().type).toBe(PROBLEM + 'vfolder-already-exists');
  });
});
