/**
 * GraphQL compute sessions, containers and images (CONTRACT §16) on real sessions: field names, filters,
 * pagination, the visibility rule of REST, and modify_compute_session. One behaviour per test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import type { BerthClient } from '../../server/client/client';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let domainAdmin: TestUser;
let outsider: TestUser;
let aliceSession: { id: string; name: string };
let bobSession: { id: string; name: string };

interface GqlAnswer {
  data?: any;
  errors?: { message: string; path?: (string | number)[]; extensions: { code: string } }[];
}

async function gql(client: BerthClient, query: string, variables?: Record<string, unknown>): Promise<GqlAnswer> {
  const res = await client.request('POST', '/admin/gql', { body: { query, variables } });
  expect(res.status).toBe(200);
  return res.json();
}

async function ok(client: BerthClient, query: string, variables?: Record<string, unknown>): Promise<any> {
  const answer = await gql(client, query, variables);
  expect(answer.errors).toBeUndefined();
  return answer.data;
}

async function create(user: TestUser, name: string): Promise<{ id: string; name: string }> {
  const created = await user.client.call('POST', '/session', { body: { name, image: 'shell' } });
  expect(created.status).toBe('RUNNING');
  return { id: created.sessionId, name };
}

beforeAll(async () => {
  t = await startTestBerth();
  await t.createDomain('elsewhere');
  alice = await t.createUser();
  bob = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  outsider = await t.createUser({ role: 'admin', isAdmin: true, domain: 'elsewhere' });
  aliceSession = await create(alice, 'gql-alice');
  bobSession = await create(bob, 'gql-bob');
}, 120_000);

afterAll(async () => {
  for (const [user, s] of [[alice, aliceSession], [bob, bobSession]] as const) {
    if (user && s) await user.client.request('DELETE', `/session/${s.id}`, { query: { forced: true } });
  }
  await t?.stop();
});

const LIST = `query($status: String, $filter: String, $order: String, $limit: Int, $offset: Int, $access_key: String, $domain_name: String) {
  compute_session_list(status: $status, filter: $filter, order: $order, limit: $limit, offset: $offset, access_key: $access_key, domain_name: $domain_name) {
    total_count
    items { id name }
  }
}`;

describe('compute_session', () => {
  it("answers a session's fields with Backend.AI's names and JSON strings", async () => {
    const data = await ok(
      alice.client,
      `query($id: UUID!) { compute_session(id: $id) {
        id session_id name type status status_info status_data status_history image architecture registry
        domain_name group_id group_name user_id user_email access_key created_at terminated_at starts_at
        occupied_slots requested_slots cluster_size cluster_mode result num_queries scaling_group agent_ids
        main_kernel_id service_ports containers { id session_id role cluster_role cluster_idx status agent image occupied_slots }
      } }`,
      { id: aliceSession.id },
    );
    const s = data.compute_session;
    expect(s).toMatchObject({
      id: aliceSession.id,
      session_id: aliceSession.id,
      name: 'gql-alice',
      type: 'interactive',
      status: 'RUNNING',
      image: 'berth/shell:5.2',
      registry: 'berth',
      domain_name: 'default',
      group_name: 'default',
      user_id: alice.uuid,
      user_email: alice.email,
      access_key: alice.accessKey,
      terminated_at: null,
      cluster_size: 1,
      cluster_mode: 'single-node',
      result: 'undefined',
      num_queries: 0,
      scaling_group: 'default',
    });
    expect(typeof s.status_data).toBe('string');
    expect(Object.keys(JSON.parse(s.status_history))).toEqual(expect.arrayContaining(['PENDING', 'RUNNING']));
    expect(JSON.parse(s.occupied_slots)).toMatchObject({ cpu: expect.any(String), mem: expect.any(String) });
    expect(JSON.parse(s.requested_slots)).toMatchObject({ cpu: expect.any(String) });
    expect(new Date(s.created_at).getTime()).toBeGreaterThan(0);
    expect(s.agent_ids).toHaveLength(1);
    expect(s.containers).toHaveLength(1);
    expect(s.containers[0]).toMatchObject({ session_id: aliceSession.id, role: 'main', cluster_role: 'main', cluster_idx: 1, status: 'RUNNING', agent: s.agent_ids[0], image: s.image });
    expect(s.main_kernel_id).toBe(s.containers[0].id);
    expect(JSON.parse(s.service_ports)).toEqual(expect.any(Array));
  });

  it("reads as null for another user's session, and for an unknown id", async () => {
    expect((await ok(alice.client, 'query($id: UUID!) { compute_session(id: $id) { id } }', { id: bobSession.id })).compute_session).toBeNull();
    expect((await ok(alice.client, 'query($id: UUID!) { compute_session(id: $id) { id } }', { id: '00000000-0000-4000-8000-000000000000' })).compute_session).toBeNull();
  });

  it("is visible to the domain's admin and to a superadmin, not to another domain's admin", async () => {
    const query = 'query($id: UUID!) { compute_session(id: $id) { name } }';
    expect((await ok(domainAdmin.client, query, { id: aliceSession.id })).compute_session).toEqual({ name: 'gql-alice' });
    expect((await ok(t.admin, query, { id: aliceSession.id })).compute_session).toEqual({ name: 'gql-alice' });
    expect((await ok(outsider.client, query, { id: aliceSession.id })).compute_session).toBeNull();
  });
});

describe('compute_session_list', () => {
  it("lists only the caller's own sessions for a user", async () => {
    const data = await ok(alice.client, LIST);
    expect(data.compute_session_list.items.map((s: any) => s.name)).toEqual(['gql-alice']);
    expect(data.compute_session_list.total_count).toBe(1);
  });

  it("lists the domain's sessions for its admin and every session for a superadmin", async () => {
    const mine = (await ok(domainAdmin.client, LIST, { order: 'name' })).compute_session_list.items.map((s: any) => s.name);
    expect(mine).toEqual(expect.arrayContaining(['gql-alice', 'gql-bob']));
    const all = (await ok(t.admin, LIST)).compute_session_list.items.map((s: any) => s.name);
    expect(all).toEqual(expect.arrayContaining(['gql-alice', 'gql-bob']));
    expect((await ok(outsider.client, LIST)).compute_session_list).toEqual({ total_count: 0, items: [] });
  });

  it('filters by a comma-separated status list and refuses an unknown status', async () => {
    expect((await ok(alice.client, LIST, { status: 'RUNNING,RESTARTING' })).compute_session_list.total_count).toBe(1);
    expect((await ok(alice.client, LIST, { status: 'terminated,cancelled' })).compute_session_list.total_count).toBe(0);
    const answer = await gql(alice.client, LIST, { status: 'RUNNING,SLEEPING' });
    expect(answer.errors?.[0]).toMatchObject({ extensions: { code: 'invalid-api-params' } });
    expect(answer.errors?.[0].message).toContain('SLEEPING');
  });

  it('applies filter, order and pagination', async () => {
    const filtered = await ok(t.admin, LIST, { filter: 'name like "gql-%" & user_email == "' + bob.email + '"' });
    expect(filtered.compute_session_list.items.map((s: any) => s.name)).toEqual(['gql-bob']);
    const page1 = await ok(t.admin, LIST, { filter: 'name like "gql-%"', order: '-name', limit: 1, offset: 0 });
    const page2 = await ok(t.admin, LIST, { filter: 'name like "gql-%"', order: '-name', limit: 1, offset: 1 });
    expect(page1.compute_session_list.total_count).toBe(2);
    expect(page1.compute_session_list.items.map((s: any) => s.name)).toEqual(['gql-bob']);
    expect(page2.compute_session_list.items.map((s: any) => s.name)).toEqual(['gql-alice']);
  });

  it("filters, orders and counts by the owner's and the project's columns", async () => {
    const [first, second] = [alice, bob].sort((a, b) => a.email.localeCompare(b.email, 'en'));
    const nameOf = (u: TestUser) => (u === alice ? 'gql-alice' : 'gql-bob');
    for (const [order, expected] of [['user_email', [first, second]], ['-user_email', [second, first]]] as const) {
      const page = await ok(t.admin, LIST, { filter: 'name like "gql-%"', order, limit: 1 });
      expect(page.compute_session_list).toEqual({ total_count: 2, items: [expect.objectContaining({ name: nameOf(expected[0]) })] });
      const next = await ok(t.admin, LIST, { filter: 'name like "gql-%"', order, limit: 1, offset: 1 });
      expect(next.compute_session_list.items.map((s: any) => s.name)).toEqual([nameOf(expected[1])]);
    }
    const { compute_session: mine } = await ok(alice.client, 'query($id: UUID!) { compute_session(id: $id) { group_name } }', { id: aliceSession.id });
    const inProject = await ok(t.admin, LIST, { filter: `name like "gql-%" & group_name == "${mine.group_name}"` });
    expect(inProject.compute_session_list.total_count).toBe(inProject.compute_session_list.items.length);
    expect(inProject.compute_session_list.items.map((s: any) => s.name)).toContain('gql-alice');
    const nowhere = await ok(t.admin, LIST, { filter: 'group_name == "no-such-project" | user_email == "nobody@example.com"' });
    expect(nowhere.compute_session_list).toEqual({ total_count: 0, items: [] });
  });

  it("filters on the sessions' agents with Backend.AI's agent_ids, agent_id and agents", async () => {
    const agentsOf = async (id: string) => (await ok(t.admin, 'query($id: UUID!) { compute_session(id: $id) { agent_ids } }', { id })).compute_session.agent_ids;
    const agentId = (await agentsOf(aliceSession.id))[0];
    const bobThere = (await agentsOf(bobSession.id)).includes(agentId);
    for (const field of ['agent_ids', 'agent_id', 'agents']) {
      const on = await ok(t.admin, LIST, { filter: `name like "gql-%" & ${field} == "${agentId}"`, order: 'name' });
      expect(on.compute_session_list.items.map((s: any) => s.name)).toEqual(bobThere ? ['gql-alice', 'gql-bob'] : ['gql-alice']);
    }
    const off = await ok(t.admin, LIST, { filter: `name like "gql-%" & agent_ids != "${agentId}"` });
    expect(off.compute_session_list.items.map((s: any) => s.name)).toEqual(bobThere ? [] : ['gql-bob']);
    expect((await ok(t.admin, LIST, { filter: 'agent_ids in ["no-such-agent"]' })).compute_session_list.total_count).toBe(0);
    expect((await ok(alice.client, LIST, { filter: `agents ilike "${agentId.toUpperCase()}"` })).compute_session_list.items.map((s: any) => s.name)).toEqual(['gql-alice']);
    expect((await gql(t.admin, LIST, { order: 'agent_ids' })).errors?.[0].extensions.code).toBe('invalid-api-params');
  });

  it("refuses a user asking for another access key or domain, and a domain admin another domain", async () => {
    const forbidden = await gql(alice.client, LIST, { access_key: bob.accessKey });
    expect(forbidden.errors?.[0].extensions.code).toBe('generic-forbidden');
    expect((await gql(alice.client, LIST, { domain_name: 'elsewhere' })).errors?.[0].extensions.code).toBe('generic-forbidden');
    expect((await gql(domainAdmin.client, LIST, { domain_name: 'elsewhere' })).errors?.[0].extensions.code).toBe('generic-forbidden');
    const byKey = await ok(domainAdmin.client, LIST, { access_key: bob.accessKey });
    expect(byKey.compute_session_list.items.map((s: any) => s.name)).toEqual(['gql-bob']);
  });
});

describe("Backend.AI clients' session queries", () => {
  it('takes group_id as a String variable, as the Backend.AI web UI and SDKs declare it', async () => {
    const query = `query($limit:Int!, $offset:Int!, $ak:String, $group_id:String, $status:String) {
      compute_session_list(limit:$limit, offset:$offset, access_key:$ak, group_id:$group_id, status:$status) { total_count items { name group_id } }
    }`;
    const group = (await ok(alice.client, 'query($id: UUID!) { compute_session(id: $id) { group_id } }', { id: aliceSession.id })).compute_session.group_id;
    const data = await ok(alice.client, query, { limit: 10, offset: 0, status: 'RUNNING', group_id: group });
    expect(data.compute_session_list).toEqual({ total_count: 1, items: [{ name: 'gql-alice', group_id: group }] });
    const other = await ok(alice.client, query, { limit: 10, offset: 0, group_id: '00000000-0000-4000-8000-000000000000' });
    expect(other.compute_session_list.total_count).toBe(0);
    const bad = await gql(alice.client, query, { limit: 10, offset: 0, group_id: 'not-a-uuid' });
    expect(bad.errors?.[0].extensions.code).toBe('invalid-api-params');
  });

  it("answers Backend.AI's legacy and extra session fields", async () => {
    const data = await ok(
      alice.client,
      `query($id: UUID!) { compute_session(id: $id) {
        agent_ids agents main_kernel_role cluster_template created_user_email created_user_id scheduled_at status_history
        vfolder_mounts idle_checks abusing_reports inference_metrics resource_opts
        containers { agent agent_addr scheduled_at abusing_report preopen_ports cluster_hostname resource_opts }
      } }`,
      { id: aliceSession.id },
    );
    const s = data.compute_session;
    expect(s.agents).toEqual(s.agent_ids);
    expect(s).toMatchObject({ main_kernel_role: 'INTERACTIVE', cluster_template: null, created_user_email: alice.email, created_user_id: alice.uuid, vfolder_mounts: [], abusing_reports: [], inference_metrics: null });
    expect(JSON.parse(s.idle_checks)).toEqual({});
    expect(new Date(s.scheduled_at).toISOString()).toBe(new Date(JSON.parse(s.status_history).SCHEDULED).toISOString());
    const [kernel] = s.containers;
    expect(kernel).toMatchObject({ agent: s.agent_ids[0], abusing_report: null, preopen_ports: [] });
    expect(typeof kernel.agent_addr).toBe('string');
    expect(kernel.scheduled_at).not.toBeNull();
    expect(JSON.parse(s.resource_opts)).toEqual({ [kernel.cluster_hostname]: JSON.parse(kernel.resource_opts) });
  });

  it("answers the Backend.AI web UI's agent list fields, counting the agent's kernels", async () => {
    const data = await ok(
      t.admin,
      `query($limit: Int!, $offset: Int!, $status: String) { agent_list(limit: $limit, offset: $offset, status: $status) { total_count items {
        id status version addr architecture region compute_plugins first_contact lost_at status_changed live_stat cpu_cur_pct mem_cur_bytes
        available_slots occupied_slots scaling_group hardware_metadata local_config container_count auto_terminate_abusing_kernel
        mem_slots cpu_slots gpu_slots tpu_slots used_mem_slots used_cpu_slots used_gpu_slots used_tpu_slots
        compute_containers(status: "RUNNING") { session_id status }
      } } }`,
      { limit: 10, offset: 0, status: 'ALIVE' },
    );
    const agentId = (await ok(alice.client, 'query($id: UUID!) { compute_session(id: $id) { agent_ids } }', { id: aliceSession.id })).compute_session.agent_ids[0];
    const agent = data.agent_list.items.find((a: any) => a.id === agentId);
    const available = JSON.parse(agent.available_slots);
    expect(agent).toMatchObject({ cpu_cur_pct: null, auto_terminate_abusing_kernel: false, cpu_slots: Number(available.cpu), gpu_slots: 0, tpu_slots: 0 });
    expect(agent.mem_slots).toBe(Math.floor(Number(available.mem) / 1024 ** 2));
    expect(agent.container_count).toBeGreaterThanOrEqual(2);
    expect(agent.compute_containers.map((k: any) => k.session_id)).toEqual(expect.arrayContaining([aliceSession.id, bobSession.id]));
    expect(agent.compute_containers.every((k: any) => k.status === 'RUNNING')).toBe(true);
    expect(JSON.parse(agent.hardware_metadata)).toEqual({});
    expect(JSON.parse(agent.local_config).agent).toMatchObject({ id: agentId, scaling_group: agent.scaling_group });
    const live = JSON.parse(agent.live_stat);
    expect(live.node.mem).toMatchObject({ capacity: available.mem, unit_hint: 'bytes' });
    expect(Number(live.node.mem.current)).toBe(agent.mem_cur_bytes);
  });
});

describe('KeyPair.compute_sessions', () => {
  it("lists a keypair's sessions, by status, to whoever may read the keypair", async () => {
    const query = 'query($ak: String, $status: String) { keypair(access_key: $ak) { compute_sessions(status: $status) { name access_key } } }';
    const own = await ok(alice.client, query, { ak: alice.accessKey });
    expect(own.keypair.compute_sessions.map((s: any) => s.name)).toContain('gql-alice');
    expect(own.keypair.compute_sessions.every((s: any) => s.access_key === alice.accessKey)).toBe(true);
    expect((await ok(alice.client, query, { ak: alice.accessKey, status: 'TERMINATED,CANCELLED' })).keypair.compute_sessions.map((s: any) => s.name)).not.toContain('gql-alice');
    expect((await ok(domainAdmin.client, query, { ak: alice.accessKey, status: 'RUNNING' })).keypair.compute_sessions.map((s: any) => s.name)).toContain('gql-alice');
    expect((await ok(bob.client, query, { ak: alice.accessKey })).keypair).toBeNull();
  });
});

describe('compute_container', () => {
  it("answers a session's containers in a list and one by id, within the visibility rule", async () => {
    const list = await ok(alice.client, 'query($sid: ID!) { compute_container_list(session_id: $sid) { total_count items { id session_id role status container_id live_stat } } }', {
      sid: aliceSession.id,
    });
    expect(list.compute_container_list.total_count).toBe(1);
    const kernel = list.compute_container_list.items[0];
    expect(kernel).toMatchObject({ session_id: aliceSession.id, role: 'main', status: 'RUNNING' });
    expect(JSON.parse(kernel.live_stat)).toMatchObject({ mem: { unit_hint: 'bytes' } });
    const one = await ok(alice.client, 'query($id: UUID!) { compute_container(id: $id) { id role } }', { id: kernel.id });
    expect(one.compute_container).toEqual({ id: kernel.id, role: 'main' });
    expect((await ok(bob.client, 'query($id: UUID!) { compute_container(id: $id) { id } }', { id: kernel.id })).compute_container).toBeNull();
    const hidden = await gql(bob.client, 'query($sid: ID!) { compute_container_list(session_id: $sid) { total_count } }', { sid: aliceSession.id });
    expect(hidden.errors?.[0].extensions.code).toBe('object-not-found');
  });
});

describe('modify_compute_session', () => {
  const MODIFY = 'mutation($id: UUID!, $props: ModifyComputeSessionInput!) { modify_compute_session(id: $id, props: $props) { ok msg compute_session { name priority } } }';

  it('renames a running session and sets its priority', async () => {
    const session = await create(alice, 'gql-rename');
    try {
      const data = await ok(alice.client, MODIFY, { id: session.id, props: { name: 'gql-renamed', priority: 42 } });
      expect(data.modify_compute_session).toEqual({ ok: true, msg: 'success', compute_session: { name: 'gql-renamed', priority: 42 } });
      expect((await alice.client.call('GET', `/session/gql-renamed`)).sessionId).toBe(session.id);
    } finally {
      await alice.client.request('DELETE', `/session/${session.id}`, { query: { forced: true } });
    }
  });

  it('answers ok:false for an invalid name or priority, and for a session the caller cannot see', async () => {
    const badName = await gql(alice.client, MODIFY, { id: aliceSession.id, props: { name: 'x' } });
    expect(badName.data.modify_compute_session).toMatchObject({ ok: false, msg: 'Invalid session name.' });
    const badPriority = await gql(alice.client, MODIFY, { id: aliceSession.id, props: { priority: 101 } });
    expect(badPriority.data.modify_compute_session.ok).toBe(false);
    const foreign = await gql(alice.client, MODIFY, { id: bobSession.id, props: { priority: 1 } });
    expect(foreign.data.modify_compute_session).toMatchObject({ ok: false, msg: 'No such session.' });
    expect(foreign.errors?.[0].extensions.code).toBe('object-not-found');
  });

  it('is refused with server-frozen while the manager is frozen', async () => {
    await t.app.manager.setStatus('frozen');
    try {
      const answer = await gql(alice.client, MODIFY, { id: aliceSession.id, props: { priority: 5 } });
      expect(answer.errors?.[0].extensions.code).toBe('server-frozen');
    } finally {
      await t.app.manager.setStatus('running');
    }
  });
});

describe('images', () => {
  it('lists the built-in images with aliases, limits and apps', async () => {
    const data = await ok(alice.client, '{ images { id name base_image_name namespace tag registry architecture runtime aliases installed is_customized resource_limits { key min max } labels { key value } service_ports } }');
    const python = data.images.find((i: any) => i.name === 'berth/python:3.11');
    expect(python).toMatchObject({ base_image_name: 'python', namespace: 'berth', tag: '3.11', runtime: 'python', installed: true, is_customized: false });
    expect(python.aliases).toEqual(expect.arrayContaining(['python', 'python3']));
    expect(python.resource_limits).toContainEqual({ key: 'cpu', min: '0.5', max: null });
    expect(python.labels).toContainEqual({ key: 'ai.backend.runtime-type', value: 'python' });
    expect(JSON.parse(python.service_ports)).toEqual(expect.any(Array));
    expect(data.images.map((i: any) => i.name)).toContain('berth/shell:5.2');
    expect((await ok(alice.client, '{ images(is_installed: false) { name } }')).images).toEqual([]);
  });

  it('finds an image by alias, name or id, and answers null for an unknown one', async () => {
    const byAlias = (await ok(alice.client, '{ image(reference: "python") { id name } }')).image;
    expect(byAlias.name).toBe('berth/python:3.11');
    expect((await ok(alice.client, '{ image(reference: "berth/python:3.11") { id } }')).image.id).toBe(byAlias.id);
    expect((await ok(alice.client, `{ image(reference: "${byAlias.id}") { name } }`)).image.name).toBe('berth/python:3.11');
    expect((await ok(alice.client, '{ image(reference: "no/such:image") { name } }')).image).toBeNull();
  });

  it("shows a committed image to its owner and the domain's admins, not to other users", async () => {
    const committed = await alice.client.call('POST', `/session/${aliceSession.name}/commit`, { body: { filename: 'gqltest' } });
    expect(committed.bgtask_id).toEqual(expect.any(String));
    let name: string | undefined;
    for (let i = 0; i < 100 && !name; i++) {
      const images = (await ok(alice.client, '{ images { name is_customized committed_from } }')).images;
      const mine = images.find((image: any) => image.is_customized);
      if (mine) {
        expect(mine.committed_from).toBe(aliceSession.id);
        name = mine.name;
      } else await new Promise((r) => setTimeout(r, 100));
    }
    expect(name).toMatch(/:gqltest$/);
    expect((await ok(domainAdmin.client, '{ images { name } }')).images.map((i: any) => i.name)).toContain(name);
    expect((await ok(bob.client, '{ images { name } }')).images.map((i: any) => i.name)).not.toContain(name);
    expect((await ok(bob.client, `{ image(reference: "${name}") { name } }`)).image).toBeNull();
    expect((await ok(outsider.client, '{ images { name } }')).images.map((i: any) => i.name)).not.toContain(name);
  });

  it("lists a user's own committed images in customized_images, and answers hash as the digest", async () => {
    let mine: any[] = [];
    for (let i = 0; i < 100 && !mine.length; i++) {
      mine = (await ok(alice.client, '{ customized_images { name is_customized digest hash } }')).customized_images;
      if (!mine.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((image: any) => image.is_customized && image.hash === image.digest)).toBe(true);
    expect((await ok(bob.client, '{ customized_images { name } }')).customized_images).toEqual([]);
    expect((await ok(domainAdmin.client, '{ customized_images { name } }')).customized_images).toEqual([]);
  });
});
