/**
 * One access rule per resource (server/sessions/access.ts, server/storage/access.ts, server/templates/access.ts):
 * for every kind of caller, the ids a list shows (REST and GraphQL, where both exist) are exactly the ids a read by
 * id lets them see, and both are the set the rule gives. services-access.test.ts does the same for model services.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthClient } from '../../server/client/client';
import { json } from '../../server/db';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';

let t: TestBerth;
const callers = new Map<string, BerthClient>();
/** Every resource made here, by the name the expectations use. */
const sessions = new Map<string, string>();
const folders = new Map<string, string>();
const templates = new Map<string, string>();

const CALLERS = ['owner alice', 'project-mate bob', 'invitee carol', 'user of another domain', 'domain admin', 'admin of another domain', 'superadmin'] as const;
type Caller = (typeof CALLERS)[number];

async function gql(client: BerthClient, query: string, variables?: Record<string, unknown>): Promise<any> {
  const answer = await client.call('POST', '/admin/gql', { body: { query, variables } });
  expect(answer.errors).toBeUndefined();
  return answer.data;
}

async function project(name: string, domain: string, members: TestUser[]): Promise<string> {
  const id = randomUUID();
  await t.app.db.insertInto('groups').values({ id, name, domain_name: domain, total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) }).execute();
  for (const m of members) await t.app.db.insertInto('association_groups_users').values({ group_id: id, user_id: m.uuid }).execute();
  return id;
}

async function storeTemplate(client: BerthClient, name: string, group: string, domain: string): Promise<string> {
  const template = { api_version: 'v1', kind: 'taskTemplate', metadata: { name }, spec: { session_type: 'interactive', kernel: { image: 'python', architecture: 'x86_64' } } };
  const [stored] = await client.call('POST', '/template/session', { body: { group, domain, payload: JSON.stringify({ template }) } });
  return stored.id;
}

beforeAll(async () => {
  t = await startTestBerth();
  await t.createDomain('elsewhere');
  const alice = await t.createUser();
  const bob = await t.createUser();
  const carol = await t.createUser();
  const stranger = await t.createUser({ domain: 'elsewhere' });
  const domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  const strangerAdmin = await t.createUser({ domain: 'elsewhere', role: 'admin', isAdmin: true });
  const clients: Record<Caller, BerthClient> = {
    'owner alice': alice.client,
    'project-mate bob': bob.client,
    'invitee carol': carol.client,
    'user of another domain': stranger.client,
    'domain admin': domainAdmin.client,
    'admin of another domain': strangerAdmin.client,
    superadmin: t.admin,
  };
  for (const who of CALLERS) callers.set(who, clients[who]);

  // Sessions: alice's and bob's (project-mates in `default`).
  for (const [owner, user] of [['alice', alice], ['bob', bob]] as const) {
    sessions.set(owner, (await user.client.call('POST', '/session', { body: { name: `access-${owner}`, image: 'shell' } })).sessionId);
  }

  // Folders: alice's (carol accepted an invitation to it), bob's, a folder of the project alice and bob share, and a
  // superadmin's user folder in the same domain (beyond a domain admin).
  const shared = await project('access-project', 'default', [alice, bob]);
  folders.set('alice', (await alice.client.call('POST', '/folders', { body: { name: 'alice-data', cloneable: false } })).id);
  folders.set('bob', (await bob.client.call('POST', '/folders', { body: { name: 'bob-data', cloneable: false } })).id);
  folders.set('project', (await domainAdmin.client.call('POST', '/folders', { body: { name: 'team-data', group: shared, cloneable: false } })).id);
  folders.set('superadmin', (await t.admin.call('POST', '/folders', { body: { name: 'boss-data', cloneable: false } })).id);
  await alice.client.call('POST', '/folders/alice-data/invite', { body: { perm: 'ro', emails: [carol.email] } });
  const [invitation] = (await carol.client.call('GET', '/folders/invitations/list')).invitations;
  await carol.client.call('POST', '/folders/invitations/accept', { body: { inv_id: invitation.id } });

  // Templates: alice's and bob's in `default`, the stranger's in the other domain.
  await project('far-project', 'elsewhere', [stranger]);
  templates.set('alice', await storeTemplate(alice.client, 'alice-env', 'default', 'default'));
  templates.set('bob', await storeTemplate(bob.client, 'bob-env', 'default', 'default'));
  templates.set('stranger', await storeTemplate(stranger.client, 'far-env', 'far-project', 'elsewhere'));
}, 120_000);
afterAll(() => t?.stop());

/** Those of `ids` (by name) that `read` finds, as ids, sorted. */
async function readable(ids: Map<string, string>, read: (id: string) => Promise<boolean>): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids.values()) if (await read(id)) out.push(id);
  return out.sort();
}

const idsOf = (ids: Map<string, string>, names: string[]) => names.map((n) => ids.get(n)!).sort();

/** 200 or 404, nothing else: a read the rule refuses looks like one of nothing. */
async function found(client: BerthClient, path: string): Promise<boolean> {
  const res = await client.request('GET', path);
  expect([200, 404]).toContain(res.status);
  return res.status === 200;
}

const SESSIONS: Record<Caller, string[]> = {
  'owner alice': ['alice'],
  'project-mate bob': ['bob'],
  'invitee carol': [],
  'user of another domain': [],
  'domain admin': ['alice', 'bob'],
  'admin of another domain': [],
  superadmin: ['alice', 'bob'],
};

describe('sessions: what a caller lists is what they can read', () => {
  for (const who of CALLERS) {
    it(who, async () => {
      const client = callers.get(who)!;
      const list = (await gql(client, '{ compute_session_list(limit: 100) { total_count items { id } } }')).compute_session_list;
      expect(list.total_count).toBe(list.items.length);
      const listed = list.items.map((s: { id: string }) => s.id).sort();
      const viaRest = await readable(sessions, (id) => found(client, `/session/${id}`));
      const viaGraphql = await readable(sessions, async (id) => (await gql(client, 'query($id: UUID!) { compute_session(id: $id) { id } }', { id })).compute_session !== null);
      const expected = idsOf(sessions, SESSIONS[who]);
      expect(listed).toEqual(expected);
      expect(viaRest).toEqual(expected);
      expect(viaGraphql).toEqual(expected);
    });
  }
});

const FOLDERS: Record<Caller, string[]> = {
  'owner alice': ['alice', 'project'],
  'project-mate bob': ['bob', 'project'],
  'invitee carol': ['alice'],
  'user of another domain': [],
  // Other users' folders by the admin route (by id); none over a superadmin's.
  'domain admin': ['alice', 'bob', 'project'],
  'admin of another domain': [],
  superadmin: ['alice', 'bob', 'project', 'superadmin'],
};

describe('folders: what a caller lists is what they can read', () => {
  for (const who of CALLERS) {
    it(who, async () => {
      const client = callers.get(who)!;
      const rest = (await client.call('GET', '/folders')).map((f: { id: string }) => f.id).sort();
      const list = (await gql(client, '{ vfolder_list(limit: 100) { total_count items { id } } }')).vfolder_list;
      expect(list.total_count).toBe(list.items.length);
      const viaRest = await readable(folders, (id) => found(client, `/folders/${id}`));
      const viaGraphql = await readable(folders, async (id) => (await gql(client, 'query($id: String!) { vfolder(id: $id) { id } }', { id })).vfolder !== null);
      const expected = idsOf(folders, FOLDERS[who]);
      expect(rest).toEqual(expected);
      expect(list.items.map((f: { id: string }) => f.id).sort()).toEqual(expected);
      expect(viaRest).toEqual(expected);
      expect(viaGraphql).toEqual(expected);
    });
  }

  it('a name means a folder of the caller\'s own routes, not one an admin reaches by id', async () => {
    const admin = callers.get('domain admin')!;
    expect((await admin.request('GET', '/folders/alice-data')).status).toBe(404);
    // Nor does another user's folder name block the admin's own.
    expect((await admin.call('POST', '/folders', { body: { name: 'alice-data', cloneable: false } })).name).toBe('alice-data');
  });
});

const TEMPLATES: Record<Caller, string[]> = {
  'owner alice': ['alice'],
  'project-mate bob': ['bob'],
  'invitee carol': [],
  'user of another domain': ['stranger'],
  'domain admin': ['alice', 'bob'],
  'admin of another domain': ['stranger'],
  superadmin: ['alice', 'bob', 'stranger'],
};

describe('templates: what a caller lists is what they can read', () => {
  for (const who of CALLERS) {
    it(who, async () => {
      const client = callers.get(who)!;
      const listed = (await client.call('GET', '/template/session', { query: { all: true } })).map((x: { id: string }) => x.id).sort();
      const expected = idsOf(templates, TEMPLATES[who]);
      expect(listed).toEqual(expected);
      expect(await readable(templates, (id) => found(client, `/template/session/${id}`))).toEqual(expected);
    });
  }

  it('without all, a superadmin lists its own domain only (a filter, not the rule)', async () => {
    const listed = (await t.admin.call('GET', '/template/session')).map((x: { id: string }) => x.id).sort();
    expect(listed).toEqual(idsOf(templates, ['alice', 'bob']));
    // Everyone else lists the same with or without it.
    const alice = callers.get('owner alice')!;
    expect((await alice.call('GET', '/template/session')).map((x: { id: string }) => x.id)).toEqual([templates.get('alice')]);
  });
});
