/** The local agent as an operator sees it: registration, watcher control, heartbeats, usage repair. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import os from 'node:os';
import { startTestBerth, type TestBerth } from '../helpers/berth';
import { agentServices } from '../../server/agents/watcher';

let t: TestBerth;
let agentId: string;
beforeAll(async () => {
  t = await startTestBerth();
  agentId = (await t.app.db.selectFrom('agents').select('id').executeTakeFirstOrThrow()).id;
});
afterAll(() => t?.stop());

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

describe('the local agent', () => {
  it('is registered ALIVE with the machine\'s real CPU count and memory', async () => {
    const agent = await t.app.db.selectFrom('agents').selectAll().where('id', '=', agentId).executeTakeFirstOrThrow();
    expect(agent.status).toBe('ALIVE');
    expect(agent.available_slots).toEqual({ cpu: String(os.cpus().length), mem: String(os.totalmem()) });
    expect(agent.scaling_group).toBe('default');
  });

  it('is reported by the watcher as running', async () => {
    expect(await t.admin.call('GET', '/resource/watcher', { query: { agent_id: agentId } })).toMatchObject({ agent_id: agentId, status: 'running' });
  });

  it('answers 404 for an unknown agent and 403 for a non-superadmin', async () => {
    expect((await t.admin.request('GET', '/resource/watcher', { query: { agent_id: 'i-nowhere' } })).status).toBe(404);
    const user = await t.createUser({ role: 'admin', isAdmin: true });
    expect((await user.client.request('POST', '/resource/watcher/agent/stop', { body: { agent_id: agentId } })).status).toBe(403);
  });

  it('stopped, takes no new sessions; started again, runs the queued one', async () => {
    expect(await t.admin.call('POST', '/resource/watcher/agent/stop', { body: { agent_id: agentId } })).toMatchObject({ status: 'stopped' });
    expect((await t.app.db.selectFrom('agents').select('status').where('id', '=', agentId).executeTakeFirstOrThrow()).status).toBe('TERMINATED');
    const queued = await t.admin.call('POST', '/session', { body: { name: 'queued-1', image: 'shell', enqueueOnly: true } });
    await new Promise((r) => setTimeout(r, 500));
    expect((await t.admin.call('GET', `/session/${queued.sessionId}`)).status).toBe('PENDING');
    expect(await t.admin.call('POST', '/resource/watcher/agent/start', { body: { agent_id: agentId } })).toMatchObject({ status: 'running' });
    await waitFor(async () => (await t.admin.call('GET', `/session/${queued.sessionId}`)).status === 'RUNNING');
    await t.admin.call('DELETE', `/session/${queued.sessionId}`);
  });

  it('restart keeps running sessions alive', async () => {
    const s = await t.admin.call('POST', '/session', { body: { name: 'survives-restart', image: 'python' } });
    await t.admin.call('POST', '/resource/watcher/agent/restart', { body: { agent_id: agentId } });
    const out = await t.admin.call('POST', '/session/survives-restart', { body: { mode: 'query', runId: null, code: 'print(6*7)' } });
    expect(out.result.console).toEqual([['stdout', '42\n']]);
    await t.admin.call('DELETE', `/session/${s.sessionId}`);
  });

  it('marks an agent LOST once it has been silent for 40 seconds', async () => {
    await t.app.db
      .insertInto('agents')
      .values({ id: 'i-silent', scaling_group: 'default', available_slots: '{"cpu":"4"}', occupied_slots: '{}', compute_plugins: '{}', last_heartbeat: new Date(Date.now() - 60_000) })
      .execute();
    await agentServices(t.app).get(agentId)!.beat();
    const silent = await t.app.db.selectFrom('agents').select(['status', 'lost_at']).where('id', '=', 'i-silent').executeTakeFirstOrThrow();
    expect(silent.status).toBe('LOST');
    expect(silent.lost_at).not.toBeNull();
    expect((await t.app.db.selectFrom('agents').select('status').where('id', '=', agentId).executeTakeFirstOrThrow()).status).toBe('ALIVE');
  });
});

describe('POST /resource/recalculate-usage', () => {
  it('repairs an agent\'s occupied slots from the kernels that hold them', async () => {
    const s = await t.admin.call('POST', '/session', { body: { name: 'holds-slots', image: 'shell' } });
    await t.app.db.updateTable('agents').set({ occupied_slots: '{"cpu":"99","mem":"1"}' }).where('id', '=', agentId).execute();
    expect(await t.admin.call('POST', '/resource/recalculate-usage')).toEqual({});
    const agent = await t.app.db.selectFrom('agents').select('occupied_slots').where('id', '=', agentId).executeTakeFirstOrThrow();
    expect(agent.occupied_slots).toEqual({ cpu: '0.5', mem: String(128 * 1024 * 1024) });
    await t.admin.call('DELETE', `/session/${s.sessionId}`);
    const after = await t.app.db.selectFrom('agents').select('occupied_slots').where('id', '=', agentId).executeTakeFirstOrThrow();
    expect(after.occupied_slots).toEqual({ cpu: '0', mem: '0' });
  });
});
