/**
 * Idle-session culling (issue 14) on real sandboxes: a session under a 5 s idle_timeout ends on its own with
 * `idle-timeout` (and the usual events) while a busy one under the same policy stays; a batch session is exempt;
 * max_session_lifetime ends even a busy session with `session-lifetime`. GET /session/{name} shows idleChecks.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { openEventStream, type EventStream } from '../helpers/sse';
import { connectStream } from '../helpers/ws';

let t: TestBerth;
let idler: TestUser;
let shortLived: TestUser;
let events: EventStream;

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const answer = await t.admin.call('POST', '/admin/gql', { body: { query, variables } });
  expect(answer.errors).toBeUndefined();
  return answer.data;
}

async function userUnder(policy: string, props: Record<string, number>): Promise<TestUser> {
  const made = await gql('mutation($name: String!, $props: CreateKeyPairResourcePolicyInput!) { create_keypair_resource_policy(name: $name, props: $props) { ok msg } }', { name: policy, props });
  expect(made.create_keypair_resource_policy.ok).toBe(true);
  const user = await t.createUser();
  const moved = await gql('mutation($ak: String!, $policy: String!) { modify_keypair(access_key: $ak, props: {resource_policy: $policy}) { ok msg } }', { ak: user.accessKey, policy });
  expect(moved.modify_keypair.ok).toBe(true);
  return user;
}

beforeAll(async () => {
  t = await startTestBerth({ idleCheckIntervalMs: 1000 });
  idler = await userUnder('idle-5s', { idle_timeout: 5 });
  shortLived = await userUnder('lifetime-6s', { max_session_lifetime: 6 });
  events = await openEventStream(t.url, t.adminCreds, '/events/session');
});
afterAll(async () => {
  events?.close();
  await t?.stop();
});

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}-${Date.now().toString(36)}`;

async function start(user: TestUser, body: Record<string, unknown>): Promise<string> {
  const name = uniqueName(String(body.image));
  const created = await user.client.call('POST', '/session', { body: { name, group: 'default', ...body } });
  expect(created.status).toBe('RUNNING');
  return name;
}

/** Starts a long run in the session and returns without waiting for it (the run keeps the session busy). */
async function keepBusy(user: TestUser, name: string, seconds: number) {
  const first = await user.client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code: `import time; time.sleep(${seconds})` } });
  expect(first.result.status).toBe('continued');
}

function terminatedEvent(sessionName: string) {
  return events.next((e) => e.event === 'session_terminated' && e.data.sessionName === sessionName, 45_000);
}

it('ends an idle interactive session with idle-timeout and keeps a busy one', async () => {
  const idle = await start(idler, { image: 'shell' });
  const busy = await start(idler, { image: 'python' });
  const batch = await start(idler, { image: 'shell', type: 'batch', startupCommand: 'sleep 12', enqueueOnly: false });
  await keepBusy(idler, busy, 40);

  const info = await idler.client.call('GET', `/session/${idle}`);
  expect(info.idleChecks.idle_timeout).toMatchObject({ threshold: 5 });
  expect(info.idleChecks.idle_timeout.remaining).toBeLessThanOrEqual(5);
  expect(info.idleChecks.session_lifetime).toBeUndefined();
  expect((await idler.client.call('GET', `/session/${batch}`)).idleChecks).toEqual({});

  const ended = await terminatedEvent(idle);
  expect(ended.data.reason).toBe('idle-timeout');
  const after = await idler.client.call('GET', `/session/${idle}`);
  expect(after).toMatchObject({ status: 'TERMINATED', statusInfo: 'idle-timeout', idleChecks: {} });

  // The busy session was checked by the same passes and stays; so does the batch job, which is exempt.
  const still = await idler.client.call('GET', `/session/${busy}`);
  expect(still.status).toBe('RUNNING');
  expect(still.idleChecks.idle_timeout.threshold).toBe(5);
  const row = await t.app.db.selectFrom('sessions').select('last_activity').where('name', '=', busy).executeTakeFirstOrThrow();
  expect(row.last_activity).not.toBeNull();
  expect((await idler.client.call('GET', `/session/${batch}`)).status).toMatch(/^(RUNNING|TERMINATED)$/);
  expect((await idler.client.call('GET', `/session/${batch}`)).statusInfo).not.toBe('idle-timeout');

  await idler.client.call('DELETE', `/session/${busy}`);
  const batchEnd = await terminatedEvent(batch);
  expect(batchEnd.data.reason).not.toBe('idle-timeout');
});

it('ends a session older than max_session_lifetime with session-lifetime, busy or not', async () => {
  const name = await start(shortLived, { image: 'python' });
  await keepBusy(shortLived, name, 40);
  const info = await shortLived.client.call('GET', `/session/${name}`);
  expect(info.idleChecks.session_lifetime).toMatchObject({ threshold: 6 });
  expect(info.idleChecks.idle_timeout).toBeUndefined();
  const ended = await terminatedEvent(name);
  expect(ended.data.reason).toBe('session-lifetime');
  expect(await shortLived.client.call('GET', `/session/${name}`)).toMatchObject({ status: 'TERMINATED', statusInfo: 'session-lifetime' });
});

it('counts terminal input as use, and an open terminal nobody types in as idle', async () => {
  const typed = await start(idler, { image: 'shell' });
  const quiet = await start(idler, { image: 'shell' });
  const typing = await connectStream(t.url, idler, `/stream/session/${typed}/pty`);
  const silent = await connectStream(t.url, idler, `/stream/session/${quiet}/pty`);
  const newline = Buffer.from('\n').toString('base64');
  const timer = setInterval(() => typing.ws.send(JSON.stringify({ type: 'stdin', chars: newline })), 1000);
  try {
    const metrics = (await t.admin.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/^berth_ws_connections\{stream="pty"\} 2$/m);
    const ended = await terminatedEvent(quiet);
    expect(ended.data.reason).toBe('idle-timeout');
    expect((await idler.client.call('GET', `/session/${typed}`)).status).toBe('RUNNING');
  } finally {
    clearInterval(timer);
    typing.ws.close();
    silent.ws.close();
    await idler.client.request('DELETE', `/session/${typed}`);
  }
});

it('reports idle_checks through GraphQL as well', async () => {
  const name = await start(idler, { image: 'shell' });
  try {
    const data = await gql('query($filter: String) { compute_session_list(limit: 5, offset: 0, filter: $filter) { items { name idle_checks } } }', { filter: `name == "${name}"` });
    const checks = JSON.parse(data.compute_session_list.items[0].idle_checks);
    expect(checks.idle_timeout).toMatchObject({ threshold: 5 });
  } finally {
    await idler.client.request('DELETE', `/session/${name}`);
  }
});

it('refuses a negative idle_timeout or lifetime', async () => {
  for (const props of ['{idle_timeout: -1}', '{max_session_lifetime: -5}']) {
    const answer = await t.admin.call('POST', '/admin/gql', { body: { query: `mutation { modify_keypair_resource_policy(name: "idle-5s", props: ${props}) { ok msg } }` } });
    expect(answer.data.modify_keypair_resource_policy.ok).toBe(false);
  }
  const policy = await gql('{ keypair_resource_policy(name: "idle-5s") { idle_timeout max_session_lifetime } }');
  expect(policy.keypair_resource_policy).toMatchObject({ idle_timeout: 5, max_session_lifetime: 0 });
});
