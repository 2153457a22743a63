/** §Manager administration: status and freezing, announcement, scheduler operations. One behaviour per test. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import type { ApiResponse } from '../../server/client/client';
import { json } from '../../server/db';
import { localAgentId } from '../../server/agents/register-local';

let t: TestBerth;
let user: TestUser;
let domainAdmin: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  t = await startTestBerth();
  user = await t.createUser();
  domainAdmin = await t.createUser({ isAdmin: true });
  await t.createDomain('mgr-other');
  outsider = await t.createUser({ domain: 'mgr-other' });
  await t.app.db
    .insertInto('agents')
    .values(['i-mgr-a', 'i-mgr-b'].map((id) => ({ id, scaling_group: 'default', available_slots: json({ cpu: '1', mem: '1024' }), occupied_slots: json({}), compute_plugins: json({}) })))
    .execute();
});
afterAll(async () => {
  if (t) await t.app.manager.setStatus('running');
  await t?.stop();
});

function expectProblem(res: ApiResponse, status: number, slug: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.json().type).toBe(`https://errors.berth.dev/${slug}`);
}

/** The 400's data names the field (or an element of it: `args.0`). */
function expectFieldError(res: ApiResponse, field: string) {
  expectProblem(res, 400, 'invalid-api-params');
  expect(Object.keys(res.json().data).some((key) => key === field || key.startsWith(`${field}.`))).toBe(true);
}

/** Polls `probe` until it answers something truthy (at most 15 s: the periodic pass runs every 10 s). */
async function until<T>(probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function schedulable(id: string): Promise<boolean> {
  const row = await t.app.db.selectFrom('agents').select('schedulable').where('id', '=', id).executeTakeFirstOrThrow();
  return row.schedulable;
}

describe('GET /manager/status', () => {
  it('answers the §15 shape with this process as the only node', async () => {
    const body = await t.admin.call('GET', '/manager/status');
    expect(body).toEqual({
      nodes: [
        {
          id: expect.any(String),
          num_proc: expect.any(Number),
          service_addr: expect.any(String),
          heartbeat_timeout: expect.any(Number),
          ssl_enabled: false,
          active_sessions: 0,
          status: 'running',
          version: expect.any(String),
          api_version: [8, '20240915'],
        },
      ],
      status: 'running',
      active_sessions: 0,
    });
  });

  it('service_addr names the port the manager listens on', async () => {
    const body = await t.admin.call('GET', '/manager/status');
    expect(body.nodes[0].service_addr.endsWith(`:${new URL(t.url).port}`)).toBe(true);
  });

  it.each([
    ['a plain user', () => user],
    ['a domain admin', () => domainAdmin],
    ['a user of another domain', () => outsider],
  ])('%s → 403 insufficient-privilege', async (_, who) => {
    expectProblem(await who().client.request('GET', '/manager/status'), 403, 'insufficient-privilege');
  });
});

describe('PUT /manager/status validation and privilege', () => {
  it.each([
    [{}, 'status'],
    [{ status: 'paused', force_kill: false }, 'status'],
    [{ status: 42, force_kill: false }, 'status'],
    [{ status: 'frozen', force_kill: 'sometimes' }, 'force_kill'],
  ])('%j → 400 naming the field', async (body, field) => {
    const res = await t.admin.request('PUT', '/manager/status', { body });
    expectFieldError(res, field);
    expect(t.app.manager.status).toBe('running');
  });

  it.each([
    ['a plain user', () => user],
    ['a domain admin', () => domainAdmin],
    ['a user of another domain', () => outsider],
  ])('%s → 403 insufficient-privilege and the status stays running', async (_, who) => {
    expectProblem(await who().client.request('PUT', '/manager/status', { body: { status: 'frozen', force_kill: false } }), 403, 'insufficient-privilege');
    expect((await t.admin.call('GET', '/manager/status')).status).toBe('running');
  });

  it('setting running while running answers {}', async () => {
    expect(await t.admin.call('PUT', '/manager/status', { body: { status: 'running', force_kill: false } })).toEqual({});
  });
});

describe('while frozen', () => {
  beforeAll(async () => {
    expect(await t.admin.call('PUT', '/manager/status', { body: { status: 'frozen' } })).toEqual({});
  });
  afterAll(async () => {
    await t.admin.call('PUT', '/manager/status', { body: { status: 'running', force_kill: false } });
  });

  it('GET /manager/status reports frozen', async () => {
    const body = await t.admin.call('GET', '/manager/status');
    expect(body.status).toBe('frozen');
    expect(body.nodes[0].status).toBe('frozen');
  });

  it('a RUNNING-marked route (GET /acl) → 503 server-frozen', async () => {
    expectProblem(await user.client.request('GET', '/acl'), 503, 'server-frozen');
  });

  it('a RUNNING-marked route refuses superadmins too', async () => {
    expectProblem(await t.admin.request('GET', '/acl'), 503, 'server-frozen');
  });

  it('a FROZEN-marked route (GET /scaling-groups) keeps working', async () => {
    expect((await user.client.request('GET', '/scaling-groups', { query: { group: 'default' } })).status).toBe(200);
  });

  it('a FROZEN-marked write (POST /logs/error) keeps working', async () => {
    const res = await user.client.request('POST', '/logs/error', {
      body: { severity: 'info', source: 'test', message: 'frozen', context_lang: 'en', context_env: '{}' },
    });
    expect(res.status).toBe(200);
  });

  it('an unmarked route (GET /resource/presets) keeps working', async () => {
    expect((await user.client.request('GET', '/resource/presets')).status).toBe(200);
  });

  it('an unmarked admin route (POST /config/get) keeps working', async () => {
    expect((await t.admin.request('POST', '/config/get', { body: { key: 'manager/status', prefix: false } })).json()).toEqual({ result: 'frozen' });
  });

  it('the status survives in the configuration store, so a reload keeps it frozen', async () => {
    await t.app.manager.load();
    expect(t.app.manager.status).toBe('frozen');
  });
});

describe('after unfreezing', () => {
  it('freezing with force_kill answers {} and unfreezing serves RUNNING routes again', async () => {
    expect(await t.admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: true } })).toEqual({});
    expectProblem(await user.client.request('GET', '/acl'), 503, 'server-frozen');
    expect(await t.admin.call('PUT', '/manager/status', { body: { status: 'running', force_kill: false } })).toEqual({});
    expect((await user.client.request('GET', '/acl')).status).toBe(200);
  });

  it('the base spec spelling FROZEN/RUNNING is accepted', async () => {
    await t.admin.call('PUT', '/manager/status', { body: { status: 'FROZEN', force_kill: false } });
    expect((await t.admin.call('GET', '/manager/status')).status).toBe('frozen');
    await t.admin.call('PUT', '/manager/status', { body: { status: 'RUNNING', force_kill: false } });
    expect((await t.admin.call('GET', '/manager/status')).status).toBe('running');
  });
});

describe('announcement', () => {
  it('is disabled and empty on a fresh manager', async () => {
    expect(await user.client.call('GET', '/manager/announcement')).toEqual({ enabled: false, message: '' });
  });

  it('enabling with a message answers {} and every signed user reads it', async () => {
    expect(await t.admin.call('POST', '/manager/announcement', { body: { enabled: true, message: 'Maintenance at noon' } })).toEqual({});
    const expected = { enabled: true, message: 'Maintenance at noon' };
    expect(await user.client.call('GET', '/manager/announcement')).toEqual(expected);
    expect(await domainAdmin.client.call('GET', '/manager/announcement')).toEqual(expected);
    expect(await outsider.client.call('GET', '/manager/announcement')).toEqual(expected);
  });

  it('disabling drops the message', async () => {
    await t.admin.call('POST', '/manager/announcement', { body: { enabled: true, message: 'soon gone' } });
    expect(await t.admin.call('POST', '/manager/announcement', { body: { enabled: false } })).toEqual({});
    expect(await user.client.call('GET', '/manager/announcement')).toEqual({ enabled: false, message: '' });
  });

  it.each([
    [{ enabled: true, message: '' }, 'message'],
    [{ enabled: true }, 'message'],
    [{ message: 'hi' }, 'enabled'],
    [{ enabled: 'perhaps', message: 'hi' }, 'enabled'],
    [{ enabled: true, message: 7 }, 'message'],
  ])('%j → 400 naming the field', async (body, field) => {
    const res = await t.admin.request('POST', '/manager/announcement', { body });
    expectFieldError(res, field);
  });

  it.each([
    ['a plain user', () => user],
    ['a domain admin', () => domainAdmin],
    ['a user of another domain', () => outsider],
  ])('%s posting → 403 insufficient-privilege', async (_, who) => {
    expectProblem(await who().client.request('POST', '/manager/announcement', { body: { enabled: true, message: 'x' } }), 403, 'insufficient-privilege');
  });

  it('an unsigned read → 401', async () => {
    expectProblem(await t.anonymous.request('GET', '/manager/announcement'), 401, 'auth-failed');
  });
});

describe('POST /manager/scheduler/operation', () => {
  it('exclude-agents with a JSON array marks the agents unschedulable', async () => {
    expect(await t.admin.call('POST', '/manager/scheduler/operation', { body: { op: 'exclude-agents', args: ['i-mgr-a', 'i-mgr-b'] } })).toEqual({});
    expect(await schedulable('i-mgr-a')).toBe(false);
    expect(await schedulable('i-mgr-b')).toBe(false);
  });

  it('include-agents with a string holding a JSON array marks them schedulable again', async () => {
    await t.admin.call('POST', '/manager/scheduler/operation', { body: { op: 'exclude-agents', args: ['i-mgr-a'] } });
    expect(await t.admin.call('POST', '/manager/scheduler/operation', { body: { op: 'include-agents', args: '["i-mgr-a"]' } })).toEqual({});
    expect(await schedulable('i-mgr-a')).toBe(true);
  });

  it('include-agents triggers a scheduling pass', async () => {
    await t.admin.call('POST', '/manager/scheduler/operation', { body: { op: 'include-agents', args: [localAgentId()] } });
    const status = await t.admin.call('GET', '/manager/scheduler/status');
    expect(status.schedule).toMatchObject({ trigger_event: 'include-agents', execution_time: expect.any(String) });
  });

  it('an unknown agent → 404 object-not-found and no agent changes', async () => {
    await t.admin.call('POST', '/manager/scheduler/operation', { body: { op: 'include-agents', args: ['i-mgr-b'] } });
    const res = await t.admin.request('POST', '/manager/scheduler/operation', { body: { op: 'exclude-agents', args: ['i-mgr-b', 'i-no-such-agent'] } });
    expectProblem(res, 404, 'object-not-found');
    expect(await schedulable('i-mgr-b')).toBe(true);
  });

  it.each([
    [{ op: 'reboot-agents', args: ['i-mgr-a'] }, 'op'],
    [{ args: ['i-mgr-a'] }, 'op'],
    [{ op: 'exclude-agents' }, 'args'],
    [{ op: 'exclude-agents', args: [] }, 'args'],
    [{ op: 'exclude-agents', args: [42] }, 'args'],
    [{ op: 'exclude-agents', args: 42 }, 'args'],
  ])('%j → 400 naming the field', async (body, field) => {
    const res = await t.admin.request('POST', '/manager/scheduler/operation', { body });
    expectFieldError(res, field);
  });

  it.each([
    ['a plain user', () => user],
    ['a domain admin', () => domainAdmin],
    ['a user of another domain', () => outsider],
  ])('%s → 403 insufficient-privilege', async (_, who) => {
    expectProblem(await who().client.request('POST', '/manager/scheduler/operation', { body: { op: 'exclude-agents', args: ['i-mgr-a'] } }), 403, 'insufficient-privilege');
    expect(await schedulable('i-mgr-a')).toBe(true);
  });
});

describe('scheduler trigger and status', () => {
  it('status has the three passes', async () => {
    const status = await t.admin.call('GET', '/manager/scheduler/status');
    expect(Object.keys(status).sort()).toEqual(['prepare', 'scale_services', 'schedule']);
  });

  it('a trigger answers {} and the status reports its run', async () => {
    const before = Date.now();
    expect(await t.admin.call('POST', '/manager/scheduler/trigger', { body: { event: 'prepare' } })).toEqual({});
    // The trigger answers at once; the pass itself runs beside it and has a finish_time once it is done.
    const prepare = await vi.waitFor(async () => {
      const status = await t.admin.call('GET', '/manager/scheduler/status');
      expect(status.prepare.finish_time).toEqual(expect.any(String));
      return status.prepare;
    });
    expect(prepare).toEqual({ trigger_event: 'prepare', execution_time: expect.any(String), finish_time: expect.any(String) });
    expect(Date.parse(prepare.execution_time)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('triggering scale_services leaves the other passes as they were', async () => {
    // `prepare` runs only when asked for (`schedule` also runs on its own, on enqueue and every 10 s).
    const { prepare: before } = await t.admin.call('GET', '/manager/scheduler/status');
    await t.admin.call('POST', '/manager/scheduler/trigger', { body: { event: 'scale_services' } });
    const status = await t.admin.call('GET', '/manager/scheduler/status');
    expect(status.scale_services.trigger_event).toBe('scale_services');
    expect(status.prepare).toEqual(before);
  });

  it('reports the scheduling passes the manager runs by itself (enqueue, termination, timer), not only triggered ones', async () => {
    await t.admin.call('POST', '/manager/scheduler/trigger', { body: { event: 'schedule' } });
    await until(async () => (await t.admin.call('GET', '/manager/scheduler/status')).schedule.finish_time !== undefined);
    const before = Date.now();
    t.app.triggerScheduler(); // what creating or terminating a session does
    const report = await until(async () => {
      const { schedule } = await t.admin.call('GET', '/manager/scheduler/status');
      return schedule.trigger_event !== 'schedule' && schedule.finish_time ? schedule : undefined;
    });
    expect(report).toEqual({ trigger_event: expect.stringMatching(/^(event|timer)$/), execution_time: expect.any(String), finish_time: expect.any(String) });
    expect(Date.parse(report.execution_time)).toBeGreaterThanOrEqual(before - 1000);
  });

  it.each([[{}], [{ event: 'reboot' }], [{ event: 3 }]])('%j → 400 invalid-api-params', async (body) => {
    const res = await t.admin.request('POST', '/manager/scheduler/trigger', { body });
    expectFieldError(res, 'event');
  });

  it.each([
    ['a plain user', () => user],
    ['a domain admin', () => domainAdmin],
    ['a user of another domain', () => outsider],
  ])('%s → 403 on trigger and status', async (_, who) => {
    expectProblem(await who().client.request('POST', '/manager/scheduler/trigger', { body: { event: 'schedule' } }), 403, 'insufficient-privilege');
    expectProblem(await who().client.request('GET', '/manager/scheduler/status'), 403, 'insufficient-privilege');
  });
});
