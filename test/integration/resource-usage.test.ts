/** Usage reports and monthly statistics (§Resources and usage; CONTRACT §12) over real, ended sessions. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let aliceGroup: string;
const today = new Date();
const yyyymm = `${today.getUTCFullYear()}${String(today.getUTCMonth() + 1).padStart(2, '0')}`;
const yyyymmdd = `${yyyymm}${String(today.getUTCDate()).padStart(2, '0')}`;

const BLOCK_KEYS = ['domain_name', 'g_id', 'g_name', 'g_cpu_allocated', 'g_cpu_used', 'g_mem_allocated', 'g_mem_used', 'g_shared_memory', 'g_disk_allocated', 'g_disk_used', 'g_io_read', 'g_io_write', 'g_device_type', 'g_smp', 'g_gpu_mem_allocated', 'g_gpu_allocated', 'c_infos'];
const CONTAINER_KEYS = ['id', 'session_id', 'container_id', 'name', 'access_key', 'email', 'full_name', 'agent', 'cpu_allocated', 'cpu_used', 'mem_allocated', 'mem_used', 'shared_memory', 'disk_allocated', 'disk_used', 'io_read', 'io_write', 'used_time', 'used_days', 'device_type', 'smp', 'gpu_mem_allocated', 'gpu_allocated', 'nfs', 'image_name', 'created_at', 'terminated_at', 'status', 'status_info', 'status_changed', 'status_history', 'cluster_mode'];

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
  await alice.client.call('POST', '/session', { body: { name: 'billed', image: 'shell', config: { resources: { cpu: 1, mem: '256m' } } } });
  aliceGroup = (await alice.client.call('GET', '/session/billed')).groupId;
  await alice.client.call('POST', '/session/billed', { body: { mode: 'query', runId: null, code: 'head -c 3000000 /dev/zero > scratch.bin; echo done' } });
  await alice.client.call('DELETE', '/session/billed');
  await alice.client.call('POST', '/session', { body: { name: 'still-running', image: 'shell' } });
});
afterAll(() => t?.stop());

const containers = (blocks: any[]) => blocks.flatMap((b) => b.c_infos);

describe('GET /resource/usage/month', () => {
  it("reports the month's containers in project blocks with the contract's fields", async () => {
    const blocks = await t.admin.call('GET', `/resource/usage/month?month=${yyyymm}`);
    const block = blocks.find((b: any) => b.g_id === aliceGroup);
    expect(Object.keys(block).sort()).toEqual([...BLOCK_KEYS].sort());
    const billed = block.c_infos.find((c: any) => c.name === 'billed');
    expect(Object.keys(billed).sort()).toEqual([...CONTAINER_KEYS].sort());
    expect(billed).toMatchObject({ access_key: alice.accessKey, email: alice.email, status: 'TERMINATED', image_name: expect.stringContaining('shell'), cpu_allocated: 1, mem_allocated: 256 * 1024 ** 2 });
    expect(billed.used_time).toMatch(/^\d+:\d{2}:\d{2}(\.\d{6})?$/);
    expect(billed.used_days).toBe(1);
    expect(billed.disk_used).toBeGreaterThanOrEqual(3_000_000);
    expect(billed.cpu_used).toBeGreaterThanOrEqual(0);
    expect(block.g_cpu_allocated).toBeGreaterThanOrEqual(1);
    expect(block.g_disk_used).toBeGreaterThanOrEqual(billed.disk_used);
  });

  it('includes containers still running, with a null used_time', async () => {
    const running = containers(await t.admin.call('GET', `/resource/usage/month?month=${yyyymm}`)).find((c: any) => c.name === 'still-running');
    expect(running).toMatchObject({ used_time: null, terminated_at: null });
  });

  it('restricts to the given projects (a JSON array) and leaves other months empty', async () => {
    const only = await t.admin.call('GET', `/resource/usage/month?month=${yyyymm}&group_ids=${encodeURIComponent(JSON.stringify([aliceGroup]))}`);
    expect(only.map((b: any) => b.g_id)).toEqual([aliceGroup]);
    expect(await t.admin.call('GET', `/resource/usage/month?month=${yyyymm}&group_ids=${encodeURIComponent(JSON.stringify([randomUUID()]))}`)).toEqual([]);
    expect(containers(await t.admin.call('GET', `/resource/usage/month?month=200001`))).toEqual([]);
  });

  it.each(['2026', '202613', '202600', 'abcdef'])('refuses month=%s with 400', async (month) => {
    const answer = await t.admin.request('GET', `/resource/usage/month?month=${month}`);
    expect(answer.status).toBe(400);
    expect((await answer.json()).type).toMatch(/invalid-api-params$/);
  });

  it('is for superadmins only', async () => {
    expect((await alice.client.request('GET', `/resource/usage/month?month=${yyyymm}`)).status).toBe(403);
  });
});

describe('GET /resource/usage/period', () => {
  it('includes the end date and filters by project', async () => {
    const blocks = await t.admin.call('GET', `/resource/usage/period?start_date=${yyyymmdd}&end_date=${yyyymmdd}`);
    expect(containers(blocks).map((c: any) => c.name)).toContain('billed');
    expect(await t.admin.call('GET', `/resource/usage/period?start_date=${yyyymmdd}&end_date=${yyyymmdd}&group_id=${randomUUID()}`)).toEqual([]);
  });

  it.each([
    ['more than 100 days', 'start_date=20260101&end_date=20260411'],
    ['an end before the start', 'start_date=20260105&end_date=20260101'],
    ['an impossible date', 'start_date=20260230&end_date=20260301'],
    ['a missing end date', 'start_date=20260101'],
  ])('refuses %s with 400', async (_, query) => {
    expect((await t.admin.request('GET', `/resource/usage/period?${query}`)).status).toBe(400);
  });

  it('accepts exactly 100 days', async () => {
    expect((await t.admin.request('GET', '/resource/usage/period?start_date=20260101&end_date=20260410')).status).toBe(200);
  });
});

describe('GET /resource/stats/{user,admin}/month', () => {
  it("bins the caller's ended sessions into 2,880 quarter hours, oldest first", async () => {
    const bins = await alice.client.call('GET', '/resource/stats/user/month');
    expect(bins).toHaveLength(2880);
    for (let i = 1; i < bins.length; i++) expect(bins[i].date - bins[i - 1].date).toBe(900);
    expect(Object.keys(bins[0]).sort()).toEqual(['cpu_allocated', 'date', 'disk_used', 'gpu_allocated', 'io_read_bytes', 'io_write_bytes', 'mem_allocated', 'num_sessions'].sort());
    expect(bins[0].mem_allocated.unit_hint).toBe('bytes');
    const busy = bins.filter((b: any) => b.num_sessions.value > 0);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.at(-1).cpu_allocated.value).toBe(1);
    expect(busy.at(-1).num_sessions.unit_hint).toBe('count');
  });

  it("shows nobody else's sessions to a user; the admin view counts everyone's", async () => {
    const bobs = await bob.client.call('GET', '/resource/stats/user/month');
    expect(bobs.every((b: any) => b.num_sessions.value === 0)).toBe(true);
    const all = await t.admin.call('GET', '/resource/stats/admin/month');
    expect(all.some((b: any) => b.num_sessions.value > 0)).toBe(true);
    expect((await bob.client.request('GET', '/resource/stats/admin/month')).status).toBe(403);
  });
});
