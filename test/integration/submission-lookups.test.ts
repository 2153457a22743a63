/**
 * Submissions reuse what they looked up (image, project membership, keypair policy, templates: server/sessions/lookups.ts)
 * while `lookup_generation` stands still. Each test first submits once so the old answer is kept, then changes it
 * and expects the very next submission to see the change: through the admin API, and through plain SQL on another
 * connection (what another replica's write is, on PostgreSQL). A broken invalidation fails these.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ApiError } from '../../server/client/client';
import { openDatabase, type OpenedDatabase } from '../../server/db';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';

let t: TestBerth;
let user: TestUser;
let n = 0;
/** The bootstrap's default keypair policy allows 16 kernels a session. */
const DEFAULT_MAX_CONTAINERS = 16;
const unique = (p: string) => `${p}-${++n}-${Date.now().toString(36)}`;

beforeAll(async () => {
  t = await startTestBerth();
  user = await t.createUser();
});
afterAll(() => t?.stop());

async function gql(query: string, variables?: Record<string, unknown>): Promise<any> {
  const answer = await t.admin.call('POST', '/admin/gql', { body: { query, variables } });
  expect(answer.errors).toBeUndefined();
  return answer.data;
}

/** Submits an enqueueOnly session; answers its name, or the API error. */
async function submit(body: Record<string, unknown>): Promise<string | ApiError> {
  const name = unique('lk');
  try {
    await user.client.call('POST', '/session', { body: { name, image: 'shell', group: 'default', enqueueOnly: true, ...body } });
    return name;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

const imageOf = async (name: string) => (await t.app.db.selectFrom('sessions').select('image').where('name', '=', name).executeTakeFirstOrThrow()).image;
const generation = async () => Number((await t.app.db.selectFrom('lookup_generation').select('n').executeTakeFirstOrThrow()).n);

async function setMaxContainers(value: number): Promise<void> {
  const data = await gql(`mutation { modify_keypair_resource_policy(name: "default", props: { max_containers_per_session: ${value} }) { ok msg } }`);
  expect(data.modify_keypair_resource_policy.ok).toBe(true);
}

describe('cached submission lookups', () => {
  it('a submission or a scheduling pass does not move the generation (what is looked up stays kept)', async () => {
    await submit({});
    const before = await generation();
    const name = await submit({});
    expect(typeof name).toBe('string');
    await t.admin.call('POST', '/manager/scheduler/trigger', { body: { event: 'schedule' } });
    expect(await generation()).toBe(before);
  });

  it('an image alias moved to another image: the next submission gets the new image; removed: refused', async () => {
    const alias = unique('lk-img');
    expect((await gql(`mutation { alias_image(alias: "${alias}", target: "berth/shell:5.2") { ok } }`)).alias_image.ok).toBe(true);
    expect(await imageOf((await submit({ image: alias })) as string)).toBe('berth/shell:5.2');
    await gql(`mutation { dealias_image(alias: "${alias}") { ok } }`);
    await gql(`mutation { alias_image(alias: "${alias}", target: "berth/python:3.11") { ok } }`);
    expect(await imageOf((await submit({ image: alias })) as string)).toBe('berth/python:3.11');
    await gql(`mutation { dealias_image(alias: "${alias}") { ok } }`);
    const refused = await submit({ image: alias });
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(400);
    expect((refused as ApiError).problem.detail).toMatch(/Unknown image/);
  });

  it('a keypair policy lowered: the next cluster over it is refused; raised: accepted', async () => {
    await setMaxContainers(2);
    try {
      expect(typeof (await submit({ cluster_size: 2 }))).toBe('string');
      await setMaxContainers(1);
      const refused = await submit({ cluster_size: 2 });
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).status).toBe(400);
      expect((refused as ApiError).problem.detail).toMatch(/at most 1 kernels/);
      await setMaxContainers(2);
      expect(typeof (await submit({ cluster_size: 2 }))).toBe('string');
    } finally {
      await setMaxContainers(DEFAULT_MAX_CONTAINERS);
    }
  });

  it('a member removed from a project: the next submission to it is refused; added back: accepted', async () => {
    const project = unique('lk-proj');
    const created = await gql('mutation($n: String!) { create_group(name: $n, props: { domain_name: "default" }) { ok group { id } } }', { n: project });
    const id = created.create_group.group.id;
    const modify = 'mutation($id: UUID!, $props: ModifyGroupInput!) { modify_group(gid: $id, props: $props) { ok } }';
    await gql(modify, { id, props: { user_update_mode: 'add', user_uuids: [user.uuid] } });
    expect(typeof (await submit({ group: project }))).toBe('string');
    await gql(modify, { id, props: { user_update_mode: 'remove', user_uuids: [user.uuid] } });
    const refused = await submit({ group: project });
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(400);
    expect((refused as ApiError).problem.detail).toMatch(/not a member/);
    await gql(modify, { id, props: { user_update_mode: 'add', user_uuids: [user.uuid] } });
    expect(typeof (await submit({ group: project }))).toBe('string');
  });

  it('a session template replaced: the next create-from-template uses the new one; deleted: 404', async () => {
    const template = (image: string) => JSON.stringify({ template: { api_version: 'v1', kind: 'taskTemplate', metadata: { name: 'lk-tmpl' }, spec: { session_type: 'batch', kernel: { image, run: { startup_command: 'true' } } } } });
    const [{ id }] = await user.client.call('POST', '/template/session', { body: { group: 'default', domain: 'default', payload: template('shell') } });
    const fromTemplate = async () => (await user.client.call('POST', '/session/_/create-from-template', { body: { template_id: id, name: unique('lk'), group: 'default', domain: 'default', enqueueOnly: true } })).sessionName;
    expect(await imageOf(await fromTemplate())).toBe('berth/shell:5.2');
    await user.client.call('PUT', `/template/session/${id}`, { body: { group: 'default', domain: 'default', payload: template('python') } });
    expect(await imageOf(await fromTemplate())).toBe('berth/python:3.11');
    await user.client.call('DELETE', `/template/session/${id}`);
    await expect(fromTemplate()).rejects.toMatchObject({ status: 404 });
  });

  it('a cluster template\'s node template deleted: the next create-cluster is refused', async () => {
    const task = JSON.stringify({ template: { api_version: 'v1', kind: 'taskTemplate', metadata: { name: 'lk-node' }, spec: { session_type: 'batch', kernel: { image: 'shell', run: { startup_command: 'true' } } } } });
    const [{ id: node }] = await user.client.call('POST', '/template/session', { body: { group: 'default', domain: 'default', payload: task } });
    const cluster = JSON.stringify({ api_version: 'v1', kind: 'clusterTemplate', mode: 'single-node', metadata: { name: 'lk-cluster' }, spec: { nodes: [{ role: 'main', session_template: node, replicas: 1 }, { role: 'sub', session_template: node, replicas: 1 }] } });
    const [{ id }] = await user.client.call('POST', '/template/cluster', { body: { group: 'default', domain: 'default', payload: cluster } });
    const createCluster = async () => (await user.client.call('POST', '/session/_/create-cluster', { body: { clientSessionToken: unique('lk'), template_id: id, type: 'batch', group: 'default', domain: 'default', enqueueOnly: true } })).sessionName;
    const name = await createCluster();
    expect(await t.app.db.selectFrom('kernels as k').innerJoin('sessions as s', 's.id', 'k.session_id').select('k.id').where('s.name', '=', name).execute()).toHaveLength(2);
    await user.client.call('DELETE', `/template/session/${node}`);
    await expect(createCluster()).rejects.toMatchObject({ status: 400, problem: { detail: expect.stringMatching(/does not exist/) } });
  });

  it('a change written on another connection (as another replica writes it) is seen by the next submission', async () => {
    // On PostgreSQL a second connection to the same database; on PGlite (one process) the manager's own database
    // handle, bypassing every admin code path.
    let other: OpenedDatabase | null = null;
    if (t.app.settings.databaseUrl) other = await openDatabase({ url: t.app.settings.databaseUrl });
    const db = other?.db ?? t.app.db;
    try {
      await setMaxContainers(2);
      expect(typeof (await submit({ cluster_size: 2 }))).toBe('string');
      await sql`update keypair_resource_policies set max_containers_per_session = 1 where name = 'default'`.execute(db);
      const refused = await submit({ cluster_size: 2 });
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).problem.detail).toMatch(/at most 1 kernels/);
    } finally {
      await setMaxContainers(DEFAULT_MAX_CONTAINERS);
      await other?.close();
    }
  });
});
