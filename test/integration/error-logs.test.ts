/** §Client error logs (CONTRACT §14.4): recording, listing by visibility, paging, marking read, clearing. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import type { ApiResponse } from '../../server/client/client';
import { RELAYED_HEADER } from '../../server/http/relayed';

let t: TestBerth;

beforeAll(async () => {
  t = await startTestBerth();
  await t.createDomain('logs-other');
});
afterAll(() => t?.stop());

/** Every test starts from an empty log, so counts and pages are exact. */
beforeEach(async () => {
  await t.app.db.deleteFrom('error_logs').execute();
});

function expectProblem(res: ApiResponse, status: number, slug: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.json().type).toBe(`https://errors.berth.dev/${slug}`);
}

const entry = (overrides: Record<string, unknown> = {}) => ({
  severity: 'error',
  source: 'dashboard',
  message: 'Something broke',
  context_lang: 'en',
  context_env: '{"page":"sessions","attempt":2}',
  request_url: 'http://127.0.0.1:8081/session',
  request_status: 500,
  traceback: 'Error: x\n  at y',
  ...overrides,
});

const post = (who: TestUser | { client: TestBerth['admin'] }, overrides: Record<string, unknown> = {}) =>
  who.client.call('POST', '/logs/error', { body: entry(overrides) });
const list = (who: TestUser | { client: TestBerth['admin'] }, query: Record<string, string | number | boolean> = {}) =>
  who.client.call('GET', '/logs/error', { query });
const superadmin = () => ({ client: t.admin });

describe('POST /logs/error', () => {
  it('answers {"success":true}', async () => {
    const user = await t.createUser();
    expect(await post(user)).toEqual({ success: true });
  });

  it('stores the record with every §14.4 field, context_env parsed', async () => {
    const user = await t.createUser();
    await post(user);
    const { logs } = await list(user);
    expect(logs).toEqual([
      {
        log_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        created_at: expect.any(Number),
        severity: 'error',
        source: 'dashboard',
        user: user.uuid,
        is_read: false,
        message: 'Something broke',
        context_lang: 'en',
        context_env: { page: 'sessions', attempt: 2 },
        request_url: 'http://127.0.0.1:8081/session',
        request_status: 500,
        traceback: 'Error: x\n  at y',
      },
    ]);
  });

  it('created_at is epoch seconds', async () => {
    const user = await t.createUser();
    const before = Date.now() / 1000;
    await post(user);
    const { logs } = await list(user);
    expect(logs[0].created_at).toBeGreaterThan(before - 60);
    expect(logs[0].created_at).toBeLessThan(before + 60);
  });

  it('severity is case-insensitive and stored in lower case', async () => {
    const user = await t.createUser();
    await post(user, { severity: 'WARNING' });
    expect((await list(user)).logs[0].severity).toBe('warning');
  });

  it('the optional fields may be left out', async () => {
    const user = await t.createUser();
    await post(user, { request_url: undefined, request_status: undefined, traceback: undefined });
    expect((await list(user)).logs[0]).toMatchObject({ request_url: null, request_status: null, traceback: null });
  });

  it.each([
    [{ severity: 'fatal' }, 'severity'],
    [{ severity: undefined }, 'severity'],
    [{ source: undefined }, 'source'],
    [{ message: undefined }, 'message'],
    [{ message: '' }, 'message'],
    [{ context_lang: undefined }, 'context_lang'],
    [{ context_env: undefined }, 'context_env'],
    [{ context_env: 'not json' }, 'context_env'],
    [{ context_env: { page: 'x' } }, 'context_env'],
    [{ context_env: '{"bad":"\\u0000"}' }, 'context_env'],
    [{ request_status: 'five hundred' }, 'request_status'],
    [{ request_status: 5.5 }, 'request_status'],
    [{ request_status: 1e12 }, 'request_status'],
    [{ source: 'a\u0000b' }, 'source'],
  ])('%j → 400 naming the field', async (overrides, field) => {
    const user = await t.createUser();
    const res = await user.client.request('POST', '/logs/error', { body: entry(overrides) });
    expectProblem(res, 400, 'invalid-api-params');
    expect(res.json().data).toHaveProperty(field);
  });

  it('an unsigned request → 401', async () => {
    expectProblem(await t.anonymous.request('POST', '/logs/error', { body: entry() }), 401, 'auth-failed');
  });
});

describe('GET /logs/error visibility', () => {
  it('a plain user sees only their own logs, without is_cleared', async () => {
    const alice = await t.createUser();
    const bob = await t.createUser();
    await post(alice, { message: 'alice' });
    await post(bob, { message: 'bob' });
    const body = await list(alice);
    expect(body.count).toBe(1);
    expect(body.logs.map((l: any) => l.message)).toEqual(['alice']);
    expect(body.logs[0]).not.toHaveProperty('is_cleared');
  });

  it("a domain admin sees every log of their domain with is_cleared, and none of another domain's", async () => {
    const admin = await t.createUser({ isAdmin: true });
    const member = await t.createUser();
    const outsider = await t.createUser({ domain: 'logs-other' });
    await post(member, { message: 'member' });
    await post(outsider, { message: 'outsider' });
    const body = await list(admin);
    expect(body.logs.map((l: any) => l.message)).toEqual(['member']);
    expect(body.logs[0].is_cleared).toBe(false);
  });

  it('a superadmin sees the logs of every domain', async () => {
    await post(await t.createUser(), { message: 'default-domain' });
    await post(await t.createUser({ domain: 'logs-other' }), { message: 'other-domain' });
    const body = await list(superadmin());
    expect(body.count).toBe(2);
    expect(body.logs.map((l: any) => l.message).sort()).toEqual(['default-domain', 'other-domain']);
    expect(body.logs[0]).toHaveProperty('is_cleared');
  });

  it('a user of another domain sees none of the default domain logs', async () => {
    await post(await t.createUser(), { message: 'default-domain' });
    expect(await list(await t.createUser({ domain: 'logs-other' }))).toEqual({ logs: [], count: 0 });
  });
});

describe('GET /logs/error paging and marking', () => {
  it('answers newest first, page_size per page, count over all pages', async () => {
    const user = await t.createUser();
    for (let i = 1; i <= 5; i++) await post(user, { message: `m${i}` });
    const first = await list(user, { page_size: 2, page_no: 1 });
    const third = await list(user, { page_size: 2, page_no: 3 });
    expect(first.count).toBe(5);
    expect(first.logs.map((l: any) => l.message)).toEqual(['m5', 'm4']);
    expect(third.logs.map((l: any) => l.message)).toEqual(['m1']);
  });

  it('pages are 20 logs by default', async () => {
    const user = await t.createUser();
    for (let i = 0; i < 21; i++) await post(user, { message: `m${i}` });
    const body = await list(user);
    expect(body.logs).toHaveLength(20);
    expect(body.count).toBe(21);
  });

  it('mark_read marks the logs of the page read', async () => {
    const user = await t.createUser();
    await post(user);
    await list(user, { mark_read: true });
    expect((await list(user)).logs[0].is_read).toBe(true);
  });

  it('mark_read on a GET the dashboard relays is refused and marks nothing (a GET through the relay is safe)', async () => {
    const user = await t.createUser();
    await post(user);
    const relayed = { [RELAYED_HEADER]: '1' };
    const refused = await user.client.request('GET', '/logs/error', { query: { mark_read: true }, headers: relayed });
    expectProblem(refused, 403, 'generic-forbidden');
    // Also when a POST asks to be routed as that GET.
    const overridden = await user.client.request('POST', '/logs/error', { query: { mark_read: true }, headers: { ...relayed, 'X-Method-Override': 'GET' } });
    expectProblem(overridden, 403, 'generic-forbidden');
    expect((await list(user)).logs[0].is_read).toBe(false);
    // Reading without it works through the relay as anywhere.
    expect((await user.client.request('GET', '/logs/error', { headers: relayed })).status).toBe(200);
  });

  it('without mark_read the logs stay unread', async () => {
    const user = await t.createUser();
    await post(user);
    await list(user);
    expect((await list(user)).logs[0].is_read).toBe(false);
  });

  it.each([
    [{ page_size: 0 }, 'page_size'],
    [{ page_size: 101 }, 'page_size'],
    [{ page_size: 'many' }, 'page_size'],
    [{ page_no: 0 }, 'page_no'],
    [{ mark_read: 'sometimes' }, 'mark_read'],
  ])('%j → 400 naming the field', async (query, field) => {
    const user = await t.createUser();
    const res = await user.client.request('GET', '/logs/error', { query });
    expectProblem(res, 400, 'invalid-api-params');
    expect(res.json().data).toHaveProperty(field);
  });
});

describe('POST /logs/error/mark-read', () => {
  const markRead = (who: TestUser, logIds: unknown) => who.client.request('POST', '/logs/error/mark-read', { body: { log_ids: logIds }, headers: { [RELAYED_HEADER]: '1' } });

  it('marks the named logs read (through the dashboard too) and leaves the others unread', async () => {
    const user = await t.createUser();
    await post(user, { message: 'first' });
    await post(user, { message: 'second' });
    const [second, first] = (await list(user)).logs;
    const res = await markRead(user, [second.log_id]);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ success: true, marked: 1 });
    const after = (await list(user)).logs;
    expect(after.map((l: any) => [l.message, l.is_read])).toEqual([['second', true], ['first', false]]);
    expect(first.is_read).toBe(false);
  });

  it('marks nothing of logs the caller cannot see', async () => {
    const owner = await t.createUser();
    const other = await t.createUser();
    await post(owner);
    const [log] = (await list(owner)).logs;
    expect((await markRead(other, [log.log_id])).json()).toEqual({ success: true, marked: 0 });
    expect((await list(owner)).logs[0].is_read).toBe(false);
  });

  it.each([
    ['none', []],
    ['not a UUID', ['not-a-uuid']],
    ['not a list', '00000000-0000-0000-0000-000000000001'],
    ['more than 100', Array.from({ length: 101 }, () => '00000000-0000-0000-0000-000000000001')],
  ])('refuses log_ids: %s, with 400', async (_, logIds) => {
    expectProblem(await markRead(await t.createUser(), logIds), 400, 'invalid-api-params');
  });
});

describe('POST /logs/error/:log_id/clear', () => {
  async function logOf(who: TestUser): Promise<string> {
    await post(who);
    return (await list(who)).logs[0].log_id;
  }

  it('the owner clears their log: {"success":true}, and it leaves their list', async () => {
    const user = await t.createUser();
    const id = await logOf(user);
    expect(await user.client.call('POST', `/logs/error/${id}/clear`)).toEqual({ success: true });
    expect(await list(user)).toEqual({ logs: [], count: 0 });
  });

  it('admins still see a cleared log, with is_cleared true', async () => {
    const user = await t.createUser();
    const id = await logOf(user);
    await user.client.call('POST', `/logs/error/${id}/clear`);
    expect((await list(superadmin())).logs.find((l: any) => l.log_id === id).is_cleared).toBe(true);
  });

  it("a domain admin clears a log of their domain", async () => {
    const admin = await t.createUser({ isAdmin: true });
    const id = await logOf(await t.createUser());
    expect(await admin.client.call('POST', `/logs/error/${id}/clear`)).toEqual({ success: true });
  });

  it('a superadmin clears a log of any domain', async () => {
    const id = await logOf(await t.createUser({ domain: 'logs-other' }));
    expect(await t.admin.call('POST', `/logs/error/${id}/clear`)).toEqual({ success: true });
  });

  it("another user → 404 and the log stays uncleared", async () => {
    const owner = await t.createUser();
    const id = await logOf(owner);
    expectProblem(await (await t.createUser()).client.request('POST', `/logs/error/${id}/clear`), 404, 'object-not-found');
    expect((await list(owner)).count).toBe(1);
  });

  it("an admin of another domain → 404", async () => {
    const id = await logOf(await t.createUser());
    const foreignAdmin = await t.createUser({ domain: 'logs-other', isAdmin: true });
    expectProblem(await foreignAdmin.client.request('POST', `/logs/error/${id}/clear`), 404, 'object-not-found');
  });

  it.each([['not-a-uuid'], ['00000000-0000-0000-0000-000000000000']])('log id %s → 404', async (id) => {
    expectProblem(await t.admin.request('POST', `/logs/error/${id}/clear`), 404, 'object-not-found');
  });
});
