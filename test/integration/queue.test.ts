/**
 * The queue: every reason a pending session can have (status_data.scheduler in Backend.AI's shape, status_info),
 * its position and estimated start (REST, GraphQL), the operators' queue view, and no over-allocation with many
 * sessions pending. Real manager, real sandboxes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { BerthClient } from '../../server/client';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { openEventStream } from '../helpers/sse';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now().toString(36)}`;

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
});
afterAll(() => t?.stop());

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

async function submit(user: TestUser, body: Record<string, unknown>): Promise<string> {
  const name = unique('q');
  await user.client.call('POST', '/session', { body: { name, image: 'shell', group: 'default', enqueueOnly: true, ...body } });
  return name;
}

/** The session once a pass has looked at it (retries ≥ 1). */
async function tried(user: TestUser, name: string) {
  let info: any;
  await waitFor(async () => {
    info = await user.client.call('GET', `/session/${name}`);
    return (info.statusData?.scheduler?.retries ?? 0) >= 1;
  });
  return info;
}

/** Asks for a scheduling pass and waits until one that started after the request has finished. */
async function aPass(): Promise<void> {
  const asked = Date.now();
  await t.admin.call('POST', '/manager/scheduler/trigger', { body: { event: 'schedule' } });
  await waitFor(async () => {
    const { schedule } = await t.admin.call('GET', '/manager/scheduler/status');
    return Boolean(schedule.finish_time) && Date.parse(schedule.execution_time) >= asked;
  });
}

const failedNames = (info: any) => info.statusData.scheduler.failed_predicates.map((p: { name: string }) => p.name);

async function gql(client: BerthClient, query: string, variables?: Record<string, unknown>) {
  return (await client.request('POST', '/admin/gql', { body: { query, variables } })).json();
}

async function usePolicy(user: TestUser, name: string, values: { total_resource_slots?: string; max_concurrent_sessions?: number }) {
  await t.app.db
    .insertInto('keypair_resource_policies')
    .values({ name, total_resource_slots: values.total_resource_slots ?? '{}', allowed_vfolder_hosts: '{}', max_concurrent_sessions: values.max_concurrent_sessions ?? 0 })
    .execute();
  await t.app.db.updateTable('keypairs').set({ resource_policy: name }).where('access_key', '=', user.accessKey).execute();
  t.app.keypairs.invalidate();
}

describe('reasons in status_data.scheduler', () => {
  it('reserved_time: a batch session waiting for starts_at says so, is not in line and estimates its start from it', async () => {
    const name = await submit(alice, { type: 'batch', startupCommand: 'true', starts_at: '2h' });
    const info = await alice.client.call('GET', `/session/${name}`);
    expect(info.status).toBe('PENDING');
    expect(info.statusData.scheduler).toMatchObject({ retries: 0, last_try: null, failed_predicates: [{ name: 'reserved_time' }], passed_predicates: [] });
    expect(info.statusInfo).toMatch(/^Starts at /);
    expect(info.queuePosition).toBeNull();
    const startsAt = Date.parse(info.estimatedStart);
    expect(startsAt - Date.now()).toBeGreaterThan(3_500_000);
    expect(startsAt - Date.now()).toBeLessThanOrEqual(7_200_000);
  });

  it('dependencies: a session depending on an unfinished one waits for it, start unknown', async () => {
    const first = await submit(alice, { type: 'batch', startupCommand: 'true', starts_at: '2h' });
    const name = await submit(alice, { type: 'batch', startupCommand: 'true', dependencies: [first] });
    const info = await alice.client.call('GET', `/session/${name}`);
    expect(failedNames(info)).toEqual(['dependencies']);
    expect(info.statusData.scheduler.failed_predicates[0].msg).toMatch(/1 session\(s\) it depends on/);
    expect(info.estimatedStart).toBe('unknown');
    expect(info.queuePosition).toBeNull();
  });

  it('concurrency: waiting for your own sessions, naming how many the keypair allows', async () => {
    const carol = await t.createUser();
    await usePolicy(carol, unique('one-at-a-time'), { max_concurrent_sessions: 1 });
    const running = unique('run');
    await carol.client.call('POST', '/session', { body: { name: running, image: 'shell', group: 'default' } });
    const name = await submit(carol, {});
    const info = await tried(carol, name);
    expect(info.status).toBe('PENDING');
    expect(failedNames(info)).toEqual(['concurrency']);
    expect(info.statusData.scheduler.passed_predicates.map((p: { name: string }) => p.name)).toEqual(
      ['reserved_time', 'dependencies', 'keypair_resource_limit', 'user_group_resource_limit', 'domain_resource_limit'],
    );
    expect(info.statusInfo).toBe('Waiting for 1 session(s) of yours to finish: your keypair allows 1 at once.');
    expect(info.queuePosition).toBeGreaterThanOrEqual(1);
    expect(info.estimatedStart).toBe('unknown');
    // Its own session ending lets it in, and the record says every check passed.
    await carol.client.call('DELETE', `/session/${running}`);
    await waitFor(async () => (await carol.client.call('GET', `/session/${name}`)).status !== 'PENDING');
    const started = await carol.client.call('GET', `/session/${name}`);
    expect(started.statusData.scheduler.failed_predicates).toEqual([]);
    expect(started.statusData.scheduler.passed_predicates).toHaveLength(7);
    expect(started.queuePosition).toBeNull();
    await carol.client.call('DELETE', `/session/${name}`, { query: { forced: true } });
  });

  it('keypair_resource_limit: shows what your own sessions hold against your limit', async () => {
    const dave = await t.createUser();
    await usePolicy(dave, unique('half-cpu'), { total_resource_slots: JSON.stringify({ cpu: '1' }) });
    const name = await submit(dave, { config: { resources: { cpu: 2 } } });
    const info = await tried(dave, name);
    expect(failedNames(info)).toEqual(['keypair_resource_limit']);
    expect(info.statusData.scheduler.failed_predicates[0].msg).toBe("it asks cpu 2; your sessions hold cpu 0 of your keypair's resource limit (cpu 1)");
    await dave.client.call('DELETE', `/session/${name}`);
  });

  it("user_group_resource_limit and domain_resource_limit: name the limit, never other users' sessions or usage", async () => {
    const bobRunning = unique('bob-secret');
    await bob.client.call('POST', '/session', { body: { name: bobRunning, image: 'shell', group: 'default' } });
    const group = await t.app.db.selectFrom('groups').select(['id', 'total_resource_slots']).where('name', '=', 'default').where('domain_name', '=', 'default').executeTakeFirstOrThrow();
    await t.app.db.updateTable('groups').set({ total_resource_slots: JSON.stringify({ cpu: '1.5' }) }).where('id', '=', group.id).execute();
    await t.app.db.updateTable('domains').set({ total_resource_slots: JSON.stringify({ cpu: '1.5' }) }).where('name', '=', 'default').execute();
    let name = '';
    try {
      name = await submit(alice, { config: { resources: { cpu: 2 } } });
      const info = await tried(alice, name);
      expect(failedNames(info)).toEqual(['user_group_resource_limit', 'domain_resource_limit']);
      expect(info.statusData.scheduler.failed_predicates[0].msg).toBe("it asks cpu 2, which the project's resource limit (cpu 1.5) cannot take now");
      expect(info.statusData.scheduler.failed_predicates[1].msg).toBe("it asks cpu 2, which the domain's resource limit (cpu 1.5) cannot take now");
      expect(info.statusInfo).toBe("It asks cpu 2, which the project's resource limit (cpu 1.5) cannot take now (and 1 more reason).");
      const text = JSON.stringify(info);
      expect(text).not.toContain(bobRunning);
      expect(text).not.toContain(bob.accessKey);
      expect(text).not.toContain(bob.email);
    } finally {
      await t.app.db.updateTable('groups').set({ total_resource_slots: JSON.stringify(group.total_resource_slots) }).where('id', '=', group.id).execute();
      await t.app.db.updateTable('domains').set({ total_resource_slots: '{}' }).where('name', '=', 'default').execute();
      if (name) await alice.client.call('DELETE', `/session/${name}`);
      await bob.client.call('DELETE', `/session/${bobRunning}`);
    }
  });
});

describe('agent_selection, positions and the queue view', () => {
  it('orders sessions no agent can hold by priority then age, in REST, GraphQL and the admin view', async () => {
    const first = await submit(alice, { config: { resources: { cpu: 100000 } } });
    const second = await submit(bob, { config: { resources: { cpu: 200000 } } });
    const urgent = await submit(alice, { config: { resources: { cpu: 100000 } }, priority: 50 });
    const info = await tried(alice, first);
    expect(failedNames(info)).toEqual(['agent_selection']);
    expect(info.statusData.scheduler.failed_predicates[0].msg).toBe('no agent has room for it now (it needs cpu 100000, mem 128 MiB on one agent)');
    expect(info.statusData.scheduler.passed_predicates).toHaveLength(6);
    await tried(bob, second);
    await tried(alice, urgent);
    expect((await alice.client.call('GET', `/session/${urgent}`)).queuePosition).toBe(1);
    expect((await alice.client.call('GET', `/session/${first}`)).queuePosition).toBe(2);
    expect((await bob.client.call('GET', `/session/${second}`)).queuePosition).toBe(3);

    const list = await gql(alice.client, '{ compute_session_list(status: "PENDING", limit: 100) { items { name queue_position estimated_start status_info } } }');
    const mine = Object.fromEntries(list.data.compute_session_list.items.map((s: any) => [s.name, s]));
    expect(mine[urgent]).toMatchObject({ queue_position: 1, estimated_start: 'unknown' });
    expect(mine[first].queue_position).toBe(2);
    expect(mine[second]).toBeUndefined(); // bob's session is not alice's to see

    const view = await gql(t.admin, '{ scheduling_queues { scaling_group scheduler entries { position session_name status_info scheduler } not_ready per_user { access_key in_line not_ready } head_needs largest_free } }');
    const queue = view.data.scheduling_queues.find((q: any) => q.scaling_group === 'default');
    expect(queue.scheduler).toBe('fifo');
    expect(queue.entries.slice(0, 3).map((e: any) => e.session_name)).toEqual([urgent, first, second]);
    expect(JSON.parse(queue.entries[0].scheduler).failed_predicates[0].name).toBe('agent_selection');
    expect(JSON.parse(queue.head_needs).cpu).toBe('100000');
    expect(Number(JSON.parse(queue.largest_free).cpu)).toBeLessThan(100000);
    expect(queue.per_user.find((u: any) => u.access_key === bob.accessKey)).toMatchObject({ in_line: 1 });

    for (const [user, name] of [[alice, first], [bob, second], [alice, urgent]] as const) await user.client.call('DELETE', `/session/${name}`);
  });

  it('refuses the queue view to a plain user', async () => {
    const answer = await gql(alice.client, '{ scheduling_queues { scaling_group } }');
    expect(answer.data?.scheduling_queues ?? null).toBeNull();
    expect(answer.errors[0].message).toMatch(/superadmin/);
  });
});

describe('estimated start from lifetime limits', () => {
  it("the head's start is when the sessions holding the agent end by their lifetime; unknown when one has no limit", async () => {
    const holderUser = await t.createUser();
    const policy = unique('hour');
    await usePolicy(holderUser, policy, {});
    await t.app.db.updateTable('keypair_resource_policies').set({ max_session_lifetime: 3600 }).where('name', '=', policy).execute();
    const { data } = await t.admin.call('POST', '/admin/gql', { body: { query: '{ agents { available_slots occupied_slots } }' } });
    const free = Number(JSON.parse(data.agents[0].available_slots).cpu) - Number(JSON.parse(data.agents[0].occupied_slots).cpu ?? 0);
    const holder = unique('holder-secret');
    await holderUser.client.call('POST', '/session', { body: { name: holder, image: 'shell', group: 'default', config: { resources: { cpu: free } } } });
    const createdAt = Date.parse((await holderUser.client.call('GET', `/session/${holder}`)).creationTime);
    const name = await submit(alice, { config: { resources: { cpu: 1 } } });
    try {
      const info = await tried(alice, name);
      expect(failedNames(info)).toEqual(['agent_selection']);
      expect(info.queuePosition).toBe(1);
      expect(info.estimatedStart).toBe(new Date(createdAt + 3_600_000).toISOString());
      // A time, never whose session it is.
      const text = JSON.stringify(info);
      expect(text).not.toContain(holder);
      expect(text).not.toContain(holderUser.accessKey);
      const list = await gql(alice.client, '{ compute_session_list(status: "PENDING", limit: 100) { items { name queue_position estimated_start } } }');
      expect(list.data.compute_session_list.items.find((s: any) => s.name === name)).toMatchObject({ queue_position: 1, estimated_start: info.estimatedStart });
      // The holder's policy without a lifetime limit: nothing says when it ends.
      await t.app.db.updateTable('keypair_resource_policies').set({ max_session_lifetime: 0 }).where('name', '=', policy).execute();
      expect((await alice.client.call('GET', `/session/${name}`)).estimatedStart).toBe('unknown');
    } finally {
      await alice.client.call('DELETE', `/session/${name}`);
      await holderUser.client.call('DELETE', `/session/${holder}`);
    }
  });

  it('a session behind one that takes the whole agent is estimated after the first one\'s own lifetime', async () => {
    const hourly = await t.createUser();
    const policy = unique('hour-all');
    await usePolicy(hourly, policy, {});
    await t.app.db.updateTable('keypair_resource_policies').set({ max_session_lifetime: 3600 }).where('name', '=', policy).execute();
    const { data } = await t.admin.call('POST', '/admin/gql', { body: { query: '{ agents { available_slots occupied_slots } }' } });
    const total = Number(JSON.parse(data.agents[0].available_slots).cpu);
    const free = total - Number(JSON.parse(data.agents[0].occupied_slots).cpu ?? 0);
    const holder = unique('holder');
    await hourly.client.call('POST', '/session', { body: { name: holder, image: 'shell', group: 'default', config: { resources: { cpu: free } } } });
    const first = await submit(hourly, { config: { resources: { cpu: total } } });
    const second = await submit(alice, { config: { resources: { cpu: total } } });
    try {
      await tried(alice, second);
      const holderEnd = Date.parse((await hourly.client.call('GET', `/session/${holder}`)).creationTime) + 3_600_000;
      const firstInfo = await hourly.client.call('GET', `/session/${first}`);
      expect(firstInfo.estimatedStart).toBe(new Date(holderEnd).toISOString());
      // The first one starts then and runs until its own lifetime (from its creation) ends.
      const secondInfo = await alice.client.call('GET', `/session/${second}`);
      expect(secondInfo.queuePosition).toBe(2);
      expect(secondInfo.estimatedStart).toBe(new Date(Date.parse(firstInfo.creationTime) + 3_600_000).toISOString());
    } finally {
      await hourly.client.call('DELETE', `/session/${first}`);
      await alice.client.call('DELETE', `/session/${second}`);
      await hourly.client.call('DELETE', `/session/${holder}`);
    }
  });
});

describe('session events on reason changes', () => {
  it('announces a pending session\'s new reason once (session_enqueued with the reason), not on every pass', async () => {
    const stream = await openEventStream(t.url, alice, '/events/session');
    try {
      const name = await submit(alice, { config: { resources: { cpu: 100000 } } });
      const reasoned = await stream.next((e) => e.event === 'session_enqueued' && e.data.sessionName === name && e.data.reason !== '');
      expect(reasoned.data.reason).toBe('No agent has room for it now (it needs cpu 100000, mem 128 MiB on one agent).');
      await aPass();
      await aPass();
      await alice.client.call('DELETE', `/session/${name}`);
      await stream.next((e) => ['session_cancelled', 'session_terminated'].includes(e.event) && e.data.sessionName === name);
      const enqueued = stream.events.filter((e) => e.event === 'session_enqueued' && e.data.sessionName === name).map((e) => e.data.reason);
      expect(enqueued).toEqual(['', reasoned.data.reason]);
    } finally {
      stream.close();
    }
  });
});

describe('many pending sessions', () => {
  it('with 10,000 sessions pending (half due but unplaceable, half reserved), 200 concurrent creates never pass a concurrency limit of 2', async () => {
    const erin = await t.createUser();
    const frank = await t.createUser();
    await usePolicy(frank, unique('two'), { max_concurrent_sessions: 2 });
    // Two sessions through the API, 4,999 copies of each in one statement: the queue the creates race past. The
    // unplaceable ones are in line, so every pass loads and locks them; the reserved ones wait for their time.
    const reserved = await submit(erin, { type: 'batch', startupCommand: 'true', starts_at: '3h' });
    const huge = await submit(erin, { config: { resources: { cpu: 100000 } } });
    await tried(erin, huge);
    await sql`
      insert into sessions (id, name, access_key, user_uuid, domain_name, group_id, scaling_group_name, session_type, image_id, image,
                            status, status_info, status_data, status_history, requested_slots, startup_command, starts_at, created_at)
      select gen_random_uuid(), s.name || '-' || g, s.access_key, s.user_uuid, s.domain_name, s.group_id, s.scaling_group_name, s.session_type,
             s.image_id, s.image, s.status, s.status_info, s.status_data, s.status_history, s.requested_slots, s.startup_command, s.starts_at,
             s.created_at + g * interval '1 microsecond'
      from sessions s, generate_series(1, 4999) g
      where s.access_key = ${erin.accessKey} and s.name in (${reserved}, ${huge})
    `.execute(t.app.db);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => frank.client.request('POST', '/session', { body: { name: `many-${i}`, image: 'shell', group: 'default', enqueueOnly: true } })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const holding = () => t.app.db.selectFrom('sessions').select('id').where('access_key', '=', frank.accessKey).where('status', 'not in', ['PENDING', 'TERMINATED', 'CANCELLED']).execute();
    await waitFor(async () => (await holding()).length === 2);
    // Passes after the creates' (one more, asked for and finished): still two.
    await aPass();
    expect((await holding()).length).toBe(2);
    const waiting = await frank.client.call('GET', '/session/many-150');
    expect(waiting.status).toBe('PENDING');
    const counts = await gql(t.admin, '{ scheduling_queues { scaling_group not_ready per_user { access_key in_line not_ready } } }');
    const users = counts.data.scheduling_queues.find((q: any) => q.scaling_group === 'default').per_user;
    expect(users.find((u: any) => u.access_key === erin.accessKey)).toMatchObject({ in_line: 5000, not_ready: 5000 });
    expect(users.find((u: any) => u.access_key === frank.accessKey).in_line).toBe(198);
    // Clean up: the 10,000 rows leave in one statement (one by one, as an operator's freeze does, takes long), the
    // two running sessions through the API.
    await t.app.db.updateTable('sessions').set({ status: 'CANCELLED', terminated_at: new Date() }).where('access_key', 'in', [erin.accessKey, frank.accessKey]).where('status', '=', 'PENDING').execute();
    for (const { id } of await holding()) await frank.client.call('DELETE', `/session/${id}`, { query: { forced: true } });
  }, 120_000);
});
