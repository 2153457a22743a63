/**
 * The image mutations of CONTRACT §16: alias, dealias, modify, forget (superadmin; users their own committed
 * images) and the long operations rescan, preload and unload, which answer a task id and finish as tasks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import type { BerthClient } from '../../server/client/client';
import { seedImages } from '../../server/images/catalog';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;

async function gql(client: BerthClient, query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await client.request('POST', '/admin/gql', { body: { query, variables } });
  expect(res.status).toBe(200);
  return res.json();
}

async function taskEnd(taskId: string) {
  for (let i = 0; i < 200; i++) {
    const task = await t.app.db.selectFrom('bgtasks').selectAll().where('id', '=', taskId).executeTakeFirstOrThrow();
    if (task.finished_at) return task;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`task ${taskId} did not finish`);
}

const imageNamed = async (client: BerthClient, reference: string) => (await gql(client, `{ image(reference: "${reference}") { id name aliases labels { key value } resource_limits { key min max } size_bytes } }`)).data.image;

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
});
afterAll(() => t?.stop());

describe('alias_image and dealias_image', () => {
  it('adds a name the image resolves by, for sessions too, and takes it away', async () => {
    const added = await gql(t.admin, 'mutation { alias_image(alias: "sh-latest", target: "berth/shell:5.2") { ok msg } }');
    expect(added.data.alias_image).toEqual({ ok: true, msg: 'success' });
    expect((await imageNamed(alice.client, 'sh-latest')).name).toBe('berth/shell:5.2');
    const session = await alice.client.call('POST', '/session', { body: { name: 'by-alias', image: 'sh-latest' } });
    expect(session.status).toBe('RUNNING');
    await alice.client.call('DELETE', '/session/by-alias');
    expect((await gql(t.admin, 'mutation { dealias_image(alias: "sh-latest") { ok } }')).data.dealias_image.ok).toBe(true);
    expect(await imageNamed(alice.client, 'sh-latest')).toBeNull();
  });

  it('refuses a taken alias, an unknown target and an unknown alias with ok false', async () => {
    expect((await gql(t.admin, 'mutation { alias_image(alias: "python", target: "berth/shell:5.2") { ok msg } }')).data.alias_image.ok).toBe(false);
    expect((await gql(t.admin, 'mutation { alias_image(alias: "berth/python:3.11", target: "berth/shell:5.2") { ok } }')).data.alias_image.ok).toBe(false);
    expect((await gql(t.admin, 'mutation { alias_image(alias: "x", target: "no/such:image") { ok } }')).data.alias_image.ok).toBe(false);
    expect((await gql(t.admin, 'mutation { alias_image(alias: "bad alias!", target: "python") { ok } }')).data.alias_image.ok).toBe(false);
    expect((await gql(t.admin, 'mutation { dealias_image(alias: "never-added") { ok } }')).data.dealias_image.ok).toBe(false);
    expect((await imageNamed(alice.client, 'python')).name).toBe('berth/python:3.11');
  });

  it('is for superadmins only', async () => {
    const answer = await gql(alice.client, 'mutation { alias_image(alias: "mine", target: "python") { ok } }');
    expect(answer.data.alias_image).toBeNull();
    expect(answer.errors[0].extensions.code).toBeDefined();
    expect(await imageNamed(alice.client, 'mine')).toBeNull();
  });
});

describe('modify_image', () => {
  it('replaces labels and resource limits and records a size', async () => {
    const props = { labels: [{ key: 'team', value: 'ml' }], resource_limits: [{ key: 'cpu', min: '1', max: '4' }, { key: 'mem', min: '268435456' }], size_bytes: 12345 };
    const answer = await gql(t.admin, 'mutation($p: ModifyImageInput!) { modify_image(target: "python", props: $p) { ok msg } }', { p: props });
    expect(answer.data.modify_image.ok).toBe(true);
    const image = await imageNamed(t.admin, 'python');
    expect(image.labels).toEqual([{ key: 'team', value: 'ml' }]);
    expect(image.resource_limits).toEqual([{ key: 'cpu', min: '1', max: '4' }, { key: 'mem', min: '268435456', max: null }]);
    expect(Number(image.size_bytes)).toBe(12345);
    // What every start does: the operator's labels and limits survive it.
    await seedImages(t.app);
    expect(await imageNamed(t.admin, 'python')).toEqual(image);
  });

  it('refuses limits that are not amounts or whose max is below min, changing nothing', async () => {
    const before = await imageNamed(t.admin, 'shell');
    for (const limit of [{ key: 'cpu', min: 'lots' }, { key: 'cpu', min: '4', max: '1' }]) {
      const answer = await gql(t.admin, 'mutation($p: ModifyImageInput!) { modify_image(target: "shell", props: $p) { ok } }', { p: { resource_limits: [limit] } });
      expect(answer.data.modify_image.ok).toBe(false);
    }
    expect(await imageNamed(t.admin, 'shell')).toEqual(before);
  });
});

describe('forget_image and rescan_images', () => {
  it("lets a user forget their own committed image, not a built-in or someone else's", async () => {
    await alice.client.call('POST', '/session', { body: { name: 'to-commit', image: 'shell' } });
    const committed = await alice.client.call('POST', '/session/to-commit/commit', { body: { filename: 'forgettable' } });
    expect((await taskEnd(committed.bgtask_id)).status).toBe('done');
    await alice.client.call('DELETE', '/session/to-commit');
    const mine = (await gql(alice.client, '{ images { name is_customized } }')).data.images.find((i: any) => i.is_customized);
    expect(mine.name).toMatch(/:forgettable$/);

    expect((await gql(alice.client, 'mutation { forget_image(reference: "shell") { ok } }')).data.forget_image.ok).toBe(false);
    expect((await gql(bob.client, `mutation { forget_image(reference: "${mine.name}") { ok } }`)).data.forget_image.ok).toBe(false);
    const forgotten = await gql(alice.client, `mutation { forget_image(reference: "${mine.name}") { ok image { name } } }`);
    expect(forgotten.data.forget_image).toEqual({ ok: true, image: { name: mine.name } });
    expect(await imageNamed(alice.client, mine.name)).toBeNull();
    expect((await alice.client.request('POST', '/session', { body: { name: 'from-forgotten', image: mine.name } })).status).toBe(400);
  });

  it('brings a forgotten built-in back with a rescan task', async () => {
    expect((await gql(t.admin, 'mutation { forget_image(reference: "berth/shell:5.2") { ok } }')).data.forget_image.ok).toBe(true);
    expect(await imageNamed(alice.client, 'berth/shell:5.2')).toBeNull();
    const rescan = (await gql(t.admin, 'mutation { rescan_images { ok msg task_id } }')).data.rescan_images;
    expect(rescan).toMatchObject({ ok: true, task_id: expect.any(String) });
    expect((await taskEnd(rescan.task_id)).status).toBe('done');
    expect((await imageNamed(alice.client, 'shell')).name).toBe('berth/shell:5.2');
    // A rescan writes the built-ins afresh, undoing modify_image.
    expect((await imageNamed(alice.client, 'python')).labels).toEqual([{ key: 'ai.backend.runtime-type', value: 'python' }]);
    expect((await gql(t.admin, 'mutation { rescan_images(registry: "docker.io") { ok } }')).data.rescan_images.ok).toBe(false);
    expect((await gql(alice.client, 'mutation { rescan_images { ok } }')).data.rescan_images).toBeNull();
  });

  it('runs preload and unload as tasks over known images and agents', async () => {
    const agents = (await gql(t.admin, '{ agent_list(limit: 10) { items { id } } }')).data.agent_list.items.map((a: any) => a.id);
    for (const op of ['preload_image', 'unload_image']) {
      const answer = (await gql(t.admin, `mutation($a: [String]!) { ${op}(references: ["python"], target_agents: $a) { ok task_id } }`, { a: agents })).data[op];
      expect(answer.ok).toBe(true);
      expect((await taskEnd(answer.task_id)).status).toBe('done');
      expect((await gql(t.admin, `mutation { ${op}(references: ["no/such:image"], target_agents: []) { ok } }`)).data[op].ok).toBe(false);
      expect((await gql(t.admin, `mutation { ${op}(references: ["python"], target_agents: ["no-such-agent"]) { ok } }`)).data[op].ok).toBe(false);
    }
  });
});
