/** §Resources and usage: presets, check-presets and scaling groups (CONTRACT §12). One behaviour per test. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import type { ApiResponse } from '../../server/client/client';
import { json } from '../../server/db';

const GiB = 1024 ** 3;
let t: TestBerth;
let user: TestUser;
let domainAdmin: TestUser;
let outsider: TestUser;
/** Users of domain res-dom: a member of res-proj, an admin who is no member, a member with a tight keypair policy. */
let resUser: TestUser;
let resAdmin: TestUser;
let resLimited: TestUser;
let resProjectId: string;
let defaultProjectId: string;

async function makeProject(domain: string, name: string, limits: Record<string, string>, members: TestUser[], sgroups: string[]): Promise<string> {
  const id = randomUUID();
  await t.app.db
    .insertInto('groups')
    .values({ id, name, domain_name: domain, total_resource_slots: json(limits), allowed_vfolder_hosts: json({}), dotfiles: json([]) })
    .execute();
  for (const member of members) await t.app.db.insertInto('association_groups_users').values({ group_id: id, user_id: member.uuid }).execute();
  for (const sg of sgroups) await t.app.db.insertInto('sgroups_for_groups').values({ scaling_group: sg, group_id: id }).execute();
  return id;
}

async function makeScalingGroup(name: string, options: { isPublic?: boolean; isActive?: boolean } = {}) {
  await t.app.db
    .insertInto('scaling_groups')
    .values({ name, is_public: options.isPublic ?? true, is_active: options.isActive ?? true, driver_opts: json({}), scheduler_opts: json({}) })
    .execute();
}

async function makeAgent(id: string, scalingGroup: string, available: Record<string, number>, occupied: Record<string, number> = {}, extra: { status?: string; schedulable?: boolean } = {}) {
  const strings = (o: Record<string, number>) => json(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)])));
  await t.app.db
    .insertInto('agents')
    .values({ id, scaling_group: scalingGroup, status: extra.status ?? 'ALIVE', schedulable: extra.schedulable ?? true, available_slots: strings(available), occupied_slots: strings(occupied), compute_plugins: json({}) })
    .execute();
}

beforeAll(async () => {
  t = await startTestBerth();
  user = await t.createUser();
  domainAdmin = await t.createUser({ isAdmin: true });
  await t.createDomain('res-other');
  outsider = await t.createUser({ domain: 'res-other' });
  defaultProjectId = (await t.app.db.selectFrom('groups').select('id').where('name', '=', 'default').executeTakeFirstOrThrow()).id;

  await t.createDomain('res-dom');
  resUser = await t.createUser({ domain: 'res-dom' });
  resAdmin = await t.createUser({ domain: 'res-dom', isAdmin: true });
  resLimited = await t.createUser({ domain: 'res-dom' });
  await t.app.db
    .insertInto('keypair_resource_policies')
    .values({ name: 'res-limited', total_resource_slots: json({ cpu: '1' }), allowed_vfolder_hosts: json({}) })
    .execute();
  await t.app.db.updateTable('keypairs').set({ resource_policy: 'res-limited' }).where('access_key', '=', resLimited.accessKey).execute();
  t.app.keypairs.invalidate();

  await makeScalingGroup('sg-res');
  await makeScalingGroup('sg-res-private', { isPublic: false });
  await makeScalingGroup('sg-res-inactive', { isActive: false });
  await makeScalingGroup('sg-unrelated');
  await t.app.db.insertInto('sgroups_for_domains').values([{ scaling_group: 'sg-res-private', domain: 'res-dom' }, { scaling_group: 'sg-res-inactive', domain: 'res-dom' }]).execute();
  resProjectId = await makeProject('res-dom', 'res-proj', {}, [resUser, resLimited], ['sg-res']);

  await makeAgent('i-res-1', 'sg-res', { cpu: 8, mem: 16 * GiB }, { cpu: 6, mem: 1 * GiB });
  await makeAgent('i-res-lost', 'sg-res', { cpu: 64, mem: 64 * GiB }, {}, { status: 'LOST' });
  await makeAgent('i-res-off', 'sg-res', { cpu: 64, mem: 64 * GiB }, {}, { schedulable: false });
  await makeAgent('i-res-private', 'sg-res-private', { cpu: 16, mem: 32 * GiB });
  await makeAgent('i-res-unrelated', 'sg-unrelated', { cpu: 16, mem: 32 * GiB });
});
afterAll(() => t?.stop());

function expectProblem(res: ApiResponse, status: number, slug: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.json().type).toBe(`https://errors.berth.dev/${slug}`);
}

const check = (who: TestUser, body: Record<string, unknown>) => who.client.call('POST', '/resource/check-presets', { body });
const allocatable = (body: any) => Object.fromEntries(body.presets.map((p: any) => [p.name, p.allocatable]));

describe('GET /resource/presets', () => {
  it('lists the bootstrap presets with slots and shared memory as decimal strings', async () => {
    const { presets } = await user.client.call('GET', '/resource/presets');
    const byName = Object.fromEntries(presets.map((p: any) => [p.name, p]));
    expect(byName.small).toEqual({ name: 'small', resource_slots: { cpu: '1', mem: String(GiB) }, shared_memory: String(64 * 1024 ** 2) });
    expect(byName.medium).toEqual({ name: 'medium', resource_slots: { cpu: '2', mem: String(4 * GiB) }, shared_memory: String(256 * 1024 ** 2) });
    expect(byName.large).toEqual({ name: 'large', resource_slots: { cpu: '4', mem: String(8 * GiB) }, shared_memory: String(GiB) });
  });

  it('lists smaller presets first', async () => {
    const { presets } = await user.client.call('GET', '/resource/presets');
    const names = presets.map((p: any) => p.name).filter((n: string) => ['small', 'medium', 'large'].includes(n));
    expect(names).toEqual(['small', 'medium', 'large']);
  });

  it('omits slots no ALIVE agent has and answers shared_memory null when unset', async () => {
    await t.app.db
      .insertInto('resource_presets')
      .values({ id: randomUUID(), name: 'res-tpu', resource_slots: json({ cpu: '1', mem: '1024', 'tpu.device': '1' }), shared_memory: null })
      .execute();
    const { presets } = await user.client.call('GET', '/resource/presets');
    expect(presets.find((p: any) => p.name === 'res-tpu')).toEqual({ name: 'res-tpu', resource_slots: { cpu: '1', mem: '1024' }, shared_memory: null });
  });

  it.each([
    ['a domain admin', () => domainAdmin],
    ['a user of another domain', () => outsider],
  ])('%s reads the same list', async (_, who) => {
    expect(await who().client.call('GET', '/resource/presets')).toEqual(await user.client.call('GET', '/resource/presets'));
  });

  it('an unsigned request → 401', async () => {
    expectProblem(await t.anonymous.request('GET', '/resource/presets'), 401, 'auth-failed');
  });
});

describe('POST /resource/check-presets: shape', () => {
  it('answers every §12 field for the default project', async () => {
    const body = await check(user, { group: 'default' });
    expect(Object.keys(body).sort()).toEqual([
      'group_limits', 'group_remaining', 'group_using', 'keypair_limits', 'keypair_remaining', 'keypair_using',
      'presets', 'scaling_group_remaining', 'scaling_groups',
    ]);
    expect(Object.keys(body.scaling_groups)).toEqual(['default']);
    expect(Object.keys(body.scaling_groups.default).sort()).toEqual(['remaining', 'using']);
    for (const preset of body.presets) {
      expect(preset).toEqual({ name: expect.any(String), resource_slots: expect.any(Object), shared_memory: expect.toSatisfy((v) => v === null || typeof v === 'string'), allocatable: expect.any(Boolean) });
    }
  });

  it('an unset keypair limit reads "Infinity" and nothing is in use', async () => {
    const body = await check(user, { group: 'default' });
    expect(body.keypair_limits).toEqual({ cpu: 'Infinity', mem: 'Infinity' });
    expect(body.keypair_using).toEqual({ cpu: '0', mem: '0' });
    expect(body.keypair_remaining).toEqual({ cpu: 'Infinity', mem: 'Infinity' });
  });

  it('project figures are "NaN" unless project-resource visibility is enabled', async () => {
    const body = await check(user, { group: 'default' });
    expect(body.group_limits).toEqual({ cpu: 'NaN', mem: 'NaN' });
    expect(body.group_using).toEqual({ cpu: 'NaN', mem: 'NaN' });
    expect(body.group_remaining).toEqual({ cpu: 'NaN', mem: 'NaN' });
  });

  it('group defaults to "default"', async () => {
    expect(await check(user, {})).toEqual(await check(user, { group: 'default' }));
  });

  it("the small preset is allocatable on this machine's agent", async () => {
    expect(allocatable(await check(user, { group: 'default' })).small).toBe(true);
  });
});

describe('POST /resource/check-presets: scaling groups and allocatability', () => {
  it('counts only ALIVE, schedulable agents of the groups a user may use (public, active)', async () => {
    const body = await check(resUser, { group: 'res-proj' });
    expect(body.scaling_groups).toEqual({
      'sg-res': { using: { cpu: '6', mem: String(GiB) }, remaining: { cpu: '2', mem: String(15 * GiB) } },
    });
    expect(body.scaling_group_remaining).toEqual({ cpu: '2', mem: String(15 * GiB) });
  });

  it('a preset is allocatable only when an agent can hold it', async () => {
    expect(allocatable(await check(resUser, { group: 'res-proj' }))).toMatchObject({ small: true, medium: true, large: false });
  });

  it('an admin also gets the private scaling groups of the domain', async () => {
    const body = await check(resAdmin, { group: 'res-proj' });
    expect(Object.keys(body.scaling_groups).sort()).toEqual(['sg-res', 'sg-res-private']);
    expect(body.scaling_group_remaining).toEqual({ cpu: '18', mem: String(47 * GiB) });
    expect(allocatable(body).large).toBe(true);
  });

  it('naming a scaling group restricts the figures to it', async () => {
    const body = await check(resAdmin, { group: 'res-proj', scaling_group: 'sg-res' });
    expect(Object.keys(body.scaling_groups)).toEqual(['sg-res']);
    expect(body.scaling_group_remaining.cpu).toBe('2');
    expect(allocatable(body).large).toBe(false);
  });

  it("a scaling group's own presets are listed only when that group is named", async () => {
    await t.app.db
      .insertInto('resource_presets')
      .values({ id: randomUUID(), name: 'res-sg-only', resource_slots: json({ cpu: '1', mem: String(GiB) }), scaling_group_name: 'sg-res' })
      .execute();
    const named = await check(resUser, { group: 'res-proj', scaling_group: 'sg-res' });
    const unnamed = await check(resUser, { group: 'res-proj' });
    expect(named.presets.map((p: any) => p.name)).toContain('res-sg-only');
    expect(unnamed.presets.map((p: any) => p.name)).not.toContain('res-sg-only');
  });

  it('the project may be given by uuid', async () => {
    expect(await check(resUser, { group: resProjectId })).toEqual(await check(resUser, { group: 'res-proj' }));
  });

  it.each([
    ['an unknown one', 'sg-no-such'],
    ['one not associated with the project', 'sg-unrelated'],
    ['a private one, for a plain user', 'sg-res-private'],
    ['an inactive one', 'sg-res-inactive'],
  ])('naming %s → 400', async (_, scalingGroup) => {
    const res = await resUser.client.request('POST', '/resource/check-presets', { body: { group: 'res-proj', scaling_group: scalingGroup } });
    expectProblem(res, 400, 'invalid-api-params');
  });
});

describe('POST /resource/check-presets: limits', () => {
  it('the keypair policy limits the keypair remainder and allocatability', async () => {
    const body = await check(resLimited, { group: 'res-proj' });
    expect(body.keypair_limits).toEqual({ cpu: '1', mem: 'Infinity' });
    expect(body.keypair_remaining).toEqual({ cpu: '1', mem: 'Infinity' });
    expect(allocatable(body)).toMatchObject({ small: true, medium: false });
  });

  it("the project's limit caps the keypair remainder", async () => {
    await makeProject('res-dom', 'res-proj-capped', { mem: String(2 * GiB) }, [resUser], ['sg-res']);
    const body = await check(resUser, { group: 'res-proj-capped' });
    expect(body.keypair_remaining).toEqual({ cpu: 'Infinity', mem: String(2 * GiB) });
    expect(allocatable(body)).toMatchObject({ small: true, medium: false });
  });

  it("the domain's limit caps the keypair remainder", async () => {
    await t.createDomain('res-capped-dom');
    await t.app.db.updateTable('domains').set({ total_resource_slots: json({ cpu: '3' }) }).where('name', '=', 'res-capped-dom').execute();
    const capped = await t.createUser({ domain: 'res-capped-dom' });
    await makeProject('res-capped-dom', 'capped-proj', {}, [capped], ['sg-res']);
    const body = await check(capped, { group: 'capped-proj' });
    expect(body.keypair_remaining).toEqual({ cpu: '3', mem: 'Infinity' });
    expect(body.keypair_limits).toEqual({ cpu: 'Infinity', mem: 'Infinity' });
  });

  it('with project-resource visibility enabled, project figures are shown', async () => {
    await makeProject('res-dom', 'res-proj-visible', { cpu: '5' }, [resUser], ['sg-res']);
    await t.admin.call('POST', '/config/set', { body: { key: 'config/api/resources/group_resource_visibility', value: 'true' } });
    try {
      const body = await check(resUser, { group: 'res-proj-visible' });
      expect(body.group_limits).toEqual({ cpu: '5', mem: 'Infinity' });
      expect(body.group_using).toEqual({ cpu: '0', mem: '0' });
      expect(body.group_remaining).toEqual({ cpu: '5', mem: 'Infinity' });
    } finally {
      await t.admin.call('POST', '/config/delete', { body: { key: 'config/api/resources/group_resource_visibility', prefix: false } });
    }
  });
});

describe('POST /resource/check-presets: bad input', () => {
  const refused = async (who: TestUser, group: string) => {
    expectProblem(await who.client.request('POST', '/resource/check-presets', { body: { group } }), 400, 'invalid-api-params');
  };

  it('an unknown project → 400', () => refused(user, 'no-such-project'));

  it("another domain's project by uuid → 400", () => refused(outsider, defaultProjectId));

  it("a project name is looked up in the caller's own domain → 400 for another domain's name", () => refused(outsider, 'default'));

  it('a project the user is not a member of → 400', () => refused(user, resProjectId));

  it.each([[{ group: 42 }], [{ group: 'default', scaling_group: ['x'] }], [{ group: '' }]])('%j → 400 invalid-api-params', async (body) => {
    expectProblem(await user.client.request('POST', '/resource/check-presets', { body }), 400, 'invalid-api-params');
  });

  it('a malformed uuid-like project never reaches the database as a uuid', async () => {
    expectProblem(await user.client.request('POST', '/resource/check-presets', { body: { group: '00000000-0000-0000-0000-00000000000g' } }), 400, 'invalid-api-params');
  });

  it('a superadmin may check any project by uuid', async () => {
    expect((await t.admin.request('POST', '/resource/check-presets', { body: { group: resProjectId } })).status).toBe(200);
  });
});

describe('GET /scaling-groups', () => {
  it('lists the scaling groups of the default project', async () => {
    expect(await user.client.call('GET', '/scaling-groups', { query: { group: 'default' } })).toEqual({ scaling_groups: [{ name: 'default' }] });
  });

  it('hides private and inactive groups from a plain user', async () => {
    expect(await resUser.client.call('GET', '/scaling-groups', { query: { group: 'res-proj' } })).toEqual({ scaling_groups: [{ name: 'sg-res' }] });
  });

  it("shows an admin the domain's private groups too", async () => {
    expect(await resAdmin.client.call('GET', '/scaling-groups', { query: { group: 'res-proj' } })).toEqual({
      scaling_groups: [{ name: 'sg-res' }, { name: 'sg-res-private' }],
    });
  });

  it('accepts the project uuid', async () => {
    expect(await resUser.client.call('GET', '/scaling-groups', { query: { group: resProjectId } })).toEqual({ scaling_groups: [{ name: 'sg-res' }] });
  });

  it("includes groups associated with the caller's keypair", async () => {
    const kpUser = await t.createUser({ domain: 'res-dom' });
    await makeProject('res-dom', 'res-proj-kp', {}, [kpUser], []);
    await makeScalingGroup('sg-res-kp');
    await t.app.db.insertInto('sgroups_for_keypairs').values({ scaling_group: 'sg-res-kp', access_key: kpUser.accessKey }).execute();
    expect(await kpUser.client.call('GET', '/scaling-groups', { query: { group: 'res-proj-kp' } })).toEqual({
      scaling_groups: [{ name: 'sg-res-kp' }],
    });
  });

  it('an unknown project → 400', async () => {
    expectProblem(await user.client.request('GET', '/scaling-groups', { query: { group: 'no-such-project' } }), 400, 'invalid-api-params');
  });

  it("a user of another domain cannot list a project's groups by uuid → 400", async () => {
    expectProblem(await outsider.client.request('GET', '/scaling-groups', { query: { group: defaultProjectId } }), 400, 'invalid-api-params');
  });

  it('a missing group → 400 naming it', async () => {
    const res = await user.client.request('GET', '/scaling-groups');
    expectProblem(res, 400, 'invalid-api-params');
    expect(res.json().data).toHaveProperty('group');
  });

  it('an unsigned request → 401', async () => {
    expectProblem(await t.anonymous.request('GET', '/scaling-groups', { query: { group: 'default' } }), 401, 'auth-failed');
  });
});
