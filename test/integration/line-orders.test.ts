/**
 * Kept queue orders (server/sessions/scheduler/line-orders.ts, migration 0021): a line's order is kept between
 * calls while queue_generation stands still, and every change that moves the line shows in the very next read of
 * a position, whether it came through the API or straight to the database (as from another replica). The
 * sessions wait in a scaling group with no agents, so they stay PENDING and in line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { BerthClient } from '../../server/client';
import { lineOrders } from '../../server/sessions/scheduler/line-orders';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';

let t: TestBerth;
let alice: TestUser;
let n = 0;
const SGROUP = 'line-orders-empty';

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  await gql(t.admin, `mutation { create_scaling_group(name: "${SGROUP}", props: { description: "no agents" }) { ok msg } }`);
  await gql(t.admin, `mutation { associate_scaling_group_with_domain(domain: "default", scaling_group: "${SGROUP}") { ok msg } }`);
});
afterAll(() => t?.stop());

async function gql(client: BerthClient, query: string, variables?: Record<string, unknown>) {
  const answer = await (await client.request('POST', '/admin/gql', { body: { query, variables } })).json();
  if (answer.errors) throw new Error(JSON.stringify(answer.errors));
  return answer.data;
}

async function submit(body: Record<string, unknown> = {}): Promise<string> {
  const name = `line-${++n}-${Date.now().toString(36)}`;
  await alice.client.call('POST', '/session', { body: { name, image: 'shell', enqueueOnly: true, config: { scaling_group: SGROUP }, ...body } });
  return name;
}

const idOf = async (name: string) => (await t.app.db.selectFrom('sessions').select('id').where('name', '=', name).where('status', '=', 'PENDING').executeTakeFirstOrThrow()).id;

/** Positions of `names`, read through the list query the dashboard's running tab sends. */
async function positions(names: string[]): Promise<(number | null)[]> {
  const data = await gql(alice.client, '{ compute_session_list(status: "PENDING", limit: 100) { items { name queue_position } } }');
  const byName = new Map<string, number | null>(data.compute_session_list.items.map((s: { name: string; queue_position: number | null }) => [s.name, s.queue_position]));
  return names.map((name) => byName.get(name) ?? null);
}

const generation = async () => Number((await t.app.db.selectFrom('queue_generation').select('n').executeTakeFirstOrThrow()).n);

async function cancelAll(names: string[]) {
  for (const name of names) await alice.client.call('DELETE', `/session/${name}`);
}

describe('a kept line order is never read stale', () => {
  it('a new submission joins the end of the line at once', async () => {
    const line = [await submit(), await submit()];
    expect(await positions(line)).toEqual([1, 2]);
    line.push(await submit());
    expect(await positions(line)).toEqual([1, 2, 3]);
    await cancelAll(line);
  });

  it('cancelling the head moves everyone behind it up at once', async () => {
    const [head, ...rest] = [await submit(), await submit(), await submit()];
    expect(await positions(rest)).toEqual([2, 3]);
    await alice.client.call('DELETE', `/session/${head}`);
    expect(await positions([head, ...rest])).toEqual([null, 1, 2]);
    await cancelAll(rest);
  });

  it('a priority changed through modify_compute_session reorders the line at once', async () => {
    const line = [await submit(), await submit()];
    expect(await positions(line)).toEqual([1, 2]);
    await gql(alice.client, 'mutation($id: UUID!) { modify_compute_session(id: $id, props: { priority: 90 }) { ok } }', { id: await idOf(line[1]) });
    expect(await positions(line)).toEqual([2, 1]);
    await cancelAll(line);
  });

  it("a change written straight to the database (another replica's) is seen by the next read", async () => {
    const line = [await submit(), await submit(), await submit()];
    expect(await positions(line)).toEqual([1, 2, 3]);
    await t.app.db.updateTable('sessions').set({ priority: 99 }).where('id', '=', await idOf(line[2])).execute();
    expect(await positions(line)).toEqual([2, 3, 1]);
    await cancelAll(line);
  });

  it('a reserved session joins the line when its time comes, with no write to tell', async () => {
    const waiting = await submit();
    const reserved = await submit({ type: 'batch', startupCommand: 'true', starts_at: new Date(Date.now() + 1500).toISOString() });
    expect(await positions([waiting, reserved])).toEqual([1, null]);
    const before = await generation();
    await new Promise((r) => setTimeout(r, 1600));
    expect(await positions([waiting, reserved])).toEqual([1, 2]);
    expect(await generation()).toBe(before);
    await cancelAll([waiting, reserved]);
  });

  it('a session joins the line once the one it depends on has finished successfully', async () => {
    // The dependency is reserved hours ahead, so it stays pending; its success is written as its end would be.
    const dependency = await submit({ type: 'batch', startupCommand: 'true', starts_at: '2h' });
    const dependent = await submit({ type: 'batch', startupCommand: 'true', dependencies: [dependency] });
    const other = await submit();
    const dependencyId = await idOf(dependency);
    // Running first (it leaves PENDING: that alone moves the generation), so only its success is left to tell.
    await t.app.db.updateTable('sessions').set({ status: 'RUNNING' }).where('id', '=', dependencyId).execute();
    expect(await positions([dependent, other])).toEqual([null, 1]);
    await t.app.db.updateTable('sessions').set({ status: 'TERMINATED', result: 'success' }).where('id', '=', dependencyId).execute();
    expect(await positions([dependent, other])).toEqual([1, 2]);
    await cancelAll([dependent, other]);
  });

  it('a new selection policy reorders the kept line at once (FIFO → LIFO)', async () => {
    const line = [await submit(), await submit()];
    expect(await positions(line)).toEqual([1, 2]);
    await gql(t.admin, `mutation { modify_scaling_group(name: "${SGROUP}", props: { scheduler: "lifo" }) { ok msg } }`);
    expect(await positions(line)).toEqual([2, 1]);
    await gql(t.admin, `mutation { modify_scaling_group(name: "${SGROUP}", props: { scheduler: "fifo" }) { ok msg } }`);
    await cancelAll(line);
  });
});

describe('what moves queue_generation', () => {
  it('a verdict refreshed by a pass (status_info, status_data) does not; a status change out of PENDING does, once per transaction', async () => {
    const [a, b] = [await submit(), await submit()];
    const ids = [await idOf(a), await idOf(b)];
    const before = await generation();
    await t.app.db.updateTable('sessions').set({ status_info: 'no agent', status_data: sql`status_data || '{"x": 1}'::jsonb` }).where('id', 'in', ids).execute();
    expect(await generation()).toBe(before);
    await t.app.db.updateTable('sessions').set({ status: 'CANCELLED' }).where('id', 'in', ids).execute();
    expect(await generation()).toBe(before + 1);
    expect(await positions([a, b])).toEqual([null, null]);
  });

  it('a kept order is served while nothing moves, and loaded again once the generation moves', async () => {
    const line = [await submit(), await submit()];
    const orders = lineOrders(t.app);
    const now = new Date();
    const first = await orders.positions(SGROUP, 'fifo', await generation(), now);
    expect(await orders.positions(SGROUP, 'fifo', await generation(), now)).toBe(first);
    expect(await orders.positions(SGROUP, 'lifo', await generation(), now)).not.toBe(first);
    await alice.client.call('DELETE', `/session/${line[0]}`);
    const after = await orders.positions(SGROUP, 'fifo', await generation(), now);
    expect(after).not.toBe(first);
    expect(after.get(await idOf(line[1]))).toBe(1);
    await cancelAll([line[1]]);
  });
});
