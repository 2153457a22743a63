/**
 * Session and cluster templates (CONTRACT §14.1, §14.2) end to end: CRUD in JSON and YAML, validation, ownership
 * and delegation, and starting real sessions from them (create-from-template, create-cluster).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let domainAdmin: TestUser;
let defaultGroupId: string;

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  const group = await t.app.db.selectFrom('groups').select('id').where('domain_name', '=', 'default').where('name', '=', 'default').executeTakeFirstOrThrow();
  defaultGroupId = group.id;
});
afterAll(() => t?.stop());

const HEX32 = /^[0-9a-f]{32}$/;
const hex = (uuid: string) => uuid.replace(/-/g, '');
const hyphenate = (id: string) => `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
const PROBLEM = 'https://errors.berth.dev/';

let counter = 0;
const uniqueName = (prefix = 'tmpl') => `${prefix}-${++counter}-${Date.now().toString(36)}`;

function taskTemplate(overrides: { name?: string; image?: string; environ?: Record<string, string>; spec?: Record<string, unknown>; tag?: string } = {}) {
  return {
    api_version: 'v1',
    kind: 'taskTemplate',
    metadata: { name: overrides.name ?? 'python-env', ...(overrides.tag ? { tag: overrides.tag } : {}) },
    spec: {
      session_type: 'interactive',
      kernel: { image: overrides.image ?? 'python', architecture: 'x86_64', environ: overrides.environ ?? { GREETING: 'hello-from-template' } },
      ...overrides.spec,
    },
  };
}

function clusterTemplate(nodes: Record<string, unknown>[], name = 'two-nodes') {
  return { api_version: 'v1', kind: 'clusterTemplate', mode: 'single-node', metadata: { name }, spec: { environ: { CLUSTER_WIDE: 'yes' }, nodes } };
}

async function storeSession(user: TestUser, payload: unknown, extra: Record<string, unknown> = {}) {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return user.client.request('POST', '/template/session', { body: { group: 'default', domain: 'default', payload: text, ...extra } });
}

async function newSessionTemplate(user: TestUser, template = taskTemplate()): Promise<string> {
  const res = await storeSession(user, { template });
  expect(res.status).toBe(200);
  return res.json()[0].id;
}

async function storeCluster(user: TestUser, payload: unknown, extra: Record<string, unknown> = {}) {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return user.client.request('POST', '/template/cluster', { body: { group: 'default', domain: 'default', payload: text, ...extra } });
}

async function countTemplates(): Promise<number> {
  const row = await t.app.db.selectFrom('session_templates').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function run(user: TestUser, name: string, code: string) {
  let result = (await user.client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code } })).result;
  const out: [string, string][] = [...result.console];
  while (result.status === 'continued') {
    result = (await user.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: result.runId, code: '' } })).result;
    out.push(...result.console);
  }
  return out;
}

describe('session templates', () => {
  it('round-trips a JSON template: create, get, list, put, delete', async () => {
    const template = taskTemplate({ name: 'json-one' });
    const created = await storeSession(alice, { name: 'my json template', template });
    expect(created.status).toBe(200);
    const [entry, ...rest] = created.json();
    expect(rest).toEqual([]);
    expect(entry).toEqual({ id: expect.stringMatching(HEX32), user: hex(alice.uuid) });

    const got = await alice.client.request('GET', `/template/session/${entry.id}`);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.json()).toEqual({ template, name: 'my json template', user_uuid: alice.uuid, group_id: defaultGroupId, domain_name: 'default' });

    const listed = (await alice.client.call('GET', '/template/session')).find((item: any) => item.id === entry.id);
    expect(listed).toEqual({
      name: 'my json template',
      id: entry.id,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/),
      is_owner: true,
      user: alice.uuid,
      group: defaultGroupId,
      user_email: alice.email,
      group_name: 'default',
      domain_name: 'default',
      type: 'task',
      template,
    });

    const replacement = taskTemplate({ name: 'json-two', image: 'shell', environ: { CHANGED: '1' } });
    const put = await alice.client.request('PUT', `/template/session/${entry.id}`, { body: { group: 'default', domain: 'default', payload: JSON.stringify({ template: replacement }) } });
    expect(put.status).toBe(200);
    expect(put.json()).toEqual({ success: true });
    expect(await alice.client.call('GET', `/template/session/${entry.id}`)).toMatchObject({ template: replacement, name: 'json-two' });

    const deleted = await alice.client.request('DELETE', `/template/session/${entry.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toEqual({ success: true });
    const gone = await alice.client.request('GET', `/template/session/${entry.id}`);
    expect(gone.status).toBe(404);
    expect(gone.json().type).toBe(`${PROBLEM}object-not-found`);
    expect((await alice.client.request('PUT', `/template/session/${entry.id}`, { body: { group: 'default', domain: 'default', payload: JSON.stringify({ template: replacement }) } })).status).toBe(404);
    expect((await alice.client.request('DELETE', `/template/session/${entry.id}`)).status).toBe(404);
    expect((await alice.client.call('GET', '/template/session')).some((item: any) => item.id === entry.id)).toBe(false);
    const row = await t.app.db.selectFrom('session_templates').select('is_active').where('id', '=', hyphenate(entry.id)).executeTakeFirstOrThrow();
    expect(row.is_active).toBe(false);
  });

  it('stores every document of a YAML list and serves them as text/yaml on request', async () => {
    const first = taskTemplate({ name: 'yaml-first' });
    const second = taskTemplate({ name: 'yaml-second', image: 'shell' });
    const created = await storeSession(alice, YAML.stringify([{ template: first }, { template: second }]));
    expect(created.status).toBe(200);
    const ids = created.json();
    expect(ids).toHaveLength(2);
    for (const entry of ids) expect(entry).toEqual({ id: expect.stringMatching(HEX32), user: hex(alice.uuid) });

    const asYaml = await alice.client.request('GET', `/template/session/${hyphenate(ids[1].id)}`, { query: { format: 'yaml' } });
    expect(asYaml.status).toBe(200);
    expect(asYaml.headers['content-type']).toBe('text/yaml');
    expect(YAML.parse(asYaml.text)).toEqual({ template: second, name: 'yaml-second', user_uuid: alice.uuid, group_id: defaultGroupId, domain_name: 'default' });
    const asJson = await alice.client.call('GET', `/template/session/${ids[0].id}`, { query: { format: 'json' } });
    expect(asJson).toMatchObject({ template: first, name: 'yaml-first' });
  });

  it('takes a YAML document and a YAML stream of documents', async () => {
    const single = await storeSession(alice, YAML.stringify({ template: taskTemplate({ name: 'single-doc' }) }));
    expect(single.status).toBe(200);
    expect(single.json()).toHaveLength(1);
    const stream = `${YAML.stringify({ template: taskTemplate({ name: 'doc-a' }) })}---\n${YAML.stringify({ template: taskTemplate({ name: 'doc-b' }) })}`;
    const many = await storeSession(alice, stream);
    expect(many.status).toBe(200);
    const names = await Promise.all(many.json().map(async (e: any) => (await alice.client.call('GET', `/template/session/${e.id}`)).name));
    expect(names).toEqual(['doc-a', 'doc-b']);
  });

  const bad: [string, unknown, string][] = [
    ['malformed YAML', 'template: [unclosed\n  kind: {', 'payload'],
    ['a missing image', { template: { ...taskTemplate(), spec: { session_type: 'interactive', kernel: { architecture: 'x86_64' } } } }, 'template.spec.kernel.image'],
    ['a wrong kind', { template: { ...taskTemplate(), kind: 'clusterTemplate' } }, 'template.kind'],
    ['an unknown session type', { template: { ...taskTemplate(), spec: { ...taskTemplate().spec, session_type: 'party' } } }, 'template.spec.session_type'],
    ['a missing session type', { template: { ...taskTemplate(), spec: { kernel: { image: 'python' } } } }, 'template.spec.session_type'],
    ['a missing metadata name', { template: { ...taskTemplate(), metadata: {} } }, 'template.metadata.name'],
    ['environ values that are not strings', { template: taskTemplate({ environ: { N: 1 } as any }) }, 'template.spec.kernel.environ.N'],
    ['a document that is not an object', '- just\n- strings\n', '0.(document)'],
  ];
  it.each(bad)('refuses %s with 400 invalid-api-params and stores nothing', async (_, payload, field) => {
    const before = await countTemplates();
    const res = await storeSession(alice, payload);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    const problem = res.json();
    expect(problem.type).toBe(`${PROBLEM}invalid-api-params`);
    expect(Object.keys(problem.data)).toContain(field);
    expect(await countTemplates()).toBe(before);
  });

  it('stores nothing when one document of a list is invalid', async () => {
    const before = await countTemplates();
    const res = await storeSession(alice, [{ template: taskTemplate() }, { template: { ...taskTemplate(), kind: 'nope' } }]);
    expect(res.status).toBe(400);
    expect(res.json().data).toHaveProperty(['1.template.kind']);
    expect(await countTemplates()).toBe(before);
  });

  it('refuses a missing payload, an unknown project and a foreign domain', async () => {
    const missing = await alice.client.request('POST', '/template/session', { body: { group: 'default', domain: 'default' } });
    expect(missing.status).toBe(400);
    expect(missing.json().data).toHaveProperty('payload');
    const project = await storeSession(alice, { template: taskTemplate() }, { group: 'no-such-project' });
    expect(project.status).toBe(400);
    expect(project.json().data).toHaveProperty('group');
    await t.createDomain('elsewhere');
    const domain = await storeSession(alice, { template: taskTemplate() }, { domain: 'elsewhere' });
    expect(domain.status).toBe(400);
    expect(domain.json().data).toHaveProperty('domain');
  });

  it('refuses a POST without group or domain, and a session-template PUT without them (both required by the spec), storing nothing', async () => {
    const payload = JSON.stringify({ template: taskTemplate() });
    const before = await countTemplates();
    for (const [kind, missing] of [['session', 'group'], ['session', 'domain'], ['cluster', 'group'], ['cluster', 'domain']]) {
      const body: Record<string, string> = { group: 'default', domain: 'default', payload };
      delete body[missing];
      const res = await alice.client.request('POST', `/template/${kind}`, { body });
      expect(res.status, `${kind} without ${missing}`).toBe(400);
      expect(res.json().type).toBe(PROBLEM + 'invalid-api-params');
      expect(res.json().data).toHaveProperty(missing);
    }
    expect(await countTemplates()).toBe(before);
    const id = await newSessionTemplate(alice);
    const renamed = JSON.stringify({ template: taskTemplate({ name: 'not-stored' }) });
    for (const missing of ['group', 'domain']) {
      const body: Record<string, string> = { group: 'default', domain: 'default', payload: renamed };
      delete body[missing];
      const res = await alice.client.request('PUT', `/template/session/${id}`, { body });
      expect(res.status, `PUT without ${missing}`).toBe(400);
      expect(res.json().data).toHaveProperty(missing);
    }
    expect((await alice.client.call('GET', `/template/session/${id}`)).name).toBe('python-env');
  });

  it('answers 404 for a template id that is malformed or unknown', async () => {
    for (const id of ['not-an-id', '0123456789abcdef0123456789abcdef']) {
      const res = await alice.client.request('GET', `/template/session/${id}`);
      expect(res.status).toBe(404);
      expect(res.json().type).toBe(`${PROBLEM}object-not-found`);
    }
  });

  it("hides another user's template (404 on get, put and delete) and leaves it unchanged", async () => {
    const id = await newSessionTemplate(alice, taskTemplate({ name: 'private' }));
    const payload = JSON.stringify({ template: taskTemplate({ name: 'hijacked' }) });
    expect((await bob.client.request('GET', `/template/session/${id}`)).status).toBe(404);
    expect((await bob.client.request('PUT', `/template/session/${id}`, { body: { group: 'default', domain: 'default', payload } })).status).toBe(404);
    expect((await bob.client.request('DELETE', `/template/session/${id}`)).status).toBe(404);
    expect(await alice.client.call('GET', `/template/session/${id}`)).toMatchObject({ name: 'private' });
    // A domain admin manages templates of the domain.
    expect(await domainAdmin.client.call('GET', `/template/session/${id}`)).toMatchObject({ name: 'private', user_uuid: alice.uuid });
  });

  it('lets an admin act for a user with owner_access_key and refuses a plain user with 403', async () => {
    const res = await storeSession(domainAdmin, { template: taskTemplate({ name: 'delegated' }) }, { owner_access_key: alice.accessKey });
    expect(res.status).toBe(200);
    const [entry] = res.json();
    expect(entry.user).toBe(hex(alice.uuid));
    expect(await alice.client.call('GET', `/template/session/${entry.id}`)).toMatchObject({ name: 'delegated', user_uuid: alice.uuid });
    expect(await domainAdmin.client.call('GET', `/template/session/${entry.id}`, { query: { owner_access_key: alice.accessKey } })).toMatchObject({ name: 'delegated' });

    const refused = await storeSession(bob, { template: taskTemplate() }, { owner_access_key: alice.accessKey });
    expect(refused.status).toBe(403);
    expect(refused.json().type).toBe(`${PROBLEM}generic-forbidden`);
    const peek = await bob.client.request('GET', `/template/session/${entry.id}`, { query: { owner_access_key: alice.accessKey } });
    expect(peek.status).toBe(403);
    const unknown = await storeSession(domainAdmin, { template: taskTemplate() }, { owner_access_key: 'AKNOSUCHKEY000000000' });
    expect(unknown.status).toBe(400);

    const removed = await domainAdmin.client.request('DELETE', `/template/session/${entry.id}`, { query: { owner_access_key: alice.accessKey } });
    expect(removed.json()).toEqual({ success: true });
  });

  it('lists what the caller may read: not a project-mate\'s templates, a domain\'s for its admins (session and cluster alike)', async () => {
    const id = await newSessionTemplate(alice, taskTemplate({ name: 'listed', environ: { SECRET_ISH: 'alice-only' } }));
    const cluster = (await storeCluster(alice, clusterTemplate([{ role: 'main', session_template: id, replicas: 1 }], 'listed-cluster'))).json()[0].id;
    for (const [kind, templateId] of [['session', id], ['cluster', cluster]] as const) {
      // bob shares alice's project (default): he can neither read nor list her templates.
      expect((await bob.client.request('GET', `/template/${kind}/${templateId}`)).status).toBe(404);
      const bobs = await bob.client.request('GET', `/template/${kind}`);
      expect(bobs.status).toBe(200);
      expect(bobs.json().some((item: any) => item.id === templateId)).toBe(false);
      expect(bobs.text).not.toContain('alice-only');
      expect((await alice.client.call('GET', `/template/${kind}`)).find((item: any) => item.id === templateId)).toMatchObject({ is_owner: true });
      expect((await domainAdmin.client.call('GET', `/template/${kind}`)).find((item: any) => item.id === templateId)).toMatchObject({ is_owner: false, user: alice.uuid, group_name: 'default' });
    }
  });

  it('filters by group_id, and lists everything only for superadmins with all=true', async () => {
    const id = await newSessionTemplate(alice, taskTemplate({ name: 'listed-too' }));
    const filtered = await alice.client.call('GET', '/template/session', { query: { group_id: hex(defaultGroupId) } });
    expect(filtered.some((item: any) => item.id === id)).toBe(true);
    const otherGroup = await alice.client.call('GET', '/template/session', { query: { group_id: '00000000-0000-0000-0000-000000000000' } });
    expect(otherGroup).toEqual([]);

    // A template of a superadmin outside every project of alice's.
    const admin = await t.admin.request('POST', '/template/session', { body: { group: 'default', domain: 'default', payload: JSON.stringify({ template: taskTemplate({ name: 'hidden' }) }) } });
    const hiddenId = admin.json()[0].id;
    await t.app.db.updateTable('session_templates').set({ group_id: null }).where('id', '=', hyphenate(hiddenId)).execute();
    expect((await alice.client.call('GET', '/template/session', { query: { all: true } })).some((item: any) => item.id === hiddenId)).toBe(false);
    const everything = await t.admin.call('GET', '/template/session', { query: { all: true } });
    expect(everything.some((item: any) => item.id === hiddenId)).toBe(true);
    expect(everything.some((item: any) => item.id === id)).toBe(true);
  });
});

describe('cluster templates', () => {
  let mainTemplate: string;
  let workerTemplate: string;
  beforeAll(async () => {
    mainTemplate = await newSessionTemplate(alice, taskTemplate({ name: 'cluster-main' }));
    workerTemplate = await newSessionTemplate(alice, taskTemplate({ name: 'cluster-worker' }));
  });

  it('round-trips a YAML cluster template; GET answers text/yaml by default', async () => {
    const template = clusterTemplate([
      { role: 'main', session_template: mainTemplate, replicas: 1 },
      { role: 'worker', session_template: hyphenate(workerTemplate), replicas: 1 },
    ]);
    const created = await storeCluster(alice, YAML.stringify(template));
    expect(created.status).toBe(200);
    const [entry] = created.json();
    expect(entry).toEqual({ id: expect.stringMatching(HEX32), user: hex(alice.uuid) });

    const got = await alice.client.request('GET', `/template/cluster/${entry.id}`);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('text/yaml');
    expect(YAML.parse(got.text)).toEqual({ template, name: 'two-nodes', user_uuid: alice.uuid, group_id: defaultGroupId, domain_name: 'default' });
    const asJson = await alice.client.request('GET', `/template/cluster/${entry.id}`, { query: { format: 'json' } });
    expect(asJson.headers['content-type']).toBe('application/json');
    expect(asJson.json()).toEqual(YAML.parse(got.text));

    const listed = (await alice.client.call('GET', '/template/cluster')).find((item: any) => item.id === entry.id);
    expect(listed).toMatchObject({ name: 'two-nodes', type: 'cluster', is_owner: true, template });
    expect((await alice.client.call('GET', '/template/session')).some((item: any) => item.id === entry.id)).toBe(false);

    const renamed = { ...template, metadata: { name: 'renamed' } };
    const put = await alice.client.request('PUT', `/template/cluster/${entry.id}`, { body: { payload: JSON.stringify(renamed) } });
    expect(put.json()).toEqual({ success: true });
    expect(await alice.client.call('GET', `/template/cluster/${entry.id}`, { query: { format: 'json' } })).toMatchObject({ name: 'renamed', template: renamed });

    expect((await bob.client.request('GET', `/template/cluster/${entry.id}`)).status).toBe(404);
    expect((await bob.client.request('DELETE', `/template/cluster/${entry.id}`)).status).toBe(404);
    // The kinds do not mix: a cluster template is no session template.
    expect((await alice.client.request('GET', `/template/session/${entry.id}`)).status).toBe(404);

    expect((await alice.client.call('DELETE', `/template/cluster/${entry.id}`))).toEqual({ success: true });
    expect((await alice.client.request('GET', `/template/cluster/${entry.id}`)).status).toBe(404);
  });

  const invalid: [string, () => unknown, string][] = [
    ['two main nodes', () => clusterTemplate([{ role: 'main', session_template: mainTemplate }, { role: 'main', session_template: workerTemplate }]), 'spec.nodes.1.role'],
    ['no main node', () => clusterTemplate([{ role: 'worker', session_template: workerTemplate }]), 'spec.nodes'],
    ['a main node with replicas 2', () => clusterTemplate([{ role: 'main', session_template: mainTemplate, replicas: 2 }]), 'spec.nodes.0.replicas'],
    ['an unknown session template', () => clusterTemplate([{ role: 'main', session_template: mainTemplate }, { role: 'worker', session_template: '0123456789abcdef0123456789abcdef' }]), 'spec.nodes.1.session_template'],
    ['a session template id that is no uuid', () => clusterTemplate([{ role: 'main', session_template: 'main-one' }]), 'spec.nodes.0.session_template'],
    ['an unknown mode', () => ({ ...clusterTemplate([{ role: 'main', session_template: mainTemplate }]), mode: 'sideways' }), 'mode'],
    ['malformed YAML', () => 'nodes: [\n', 'payload'],
  ];
  it.each(invalid)('refuses %s with 400 and stores nothing', async (_, make, field) => {
    const before = await countTemplates();
    const payload = make();
    const res = await storeCluster(alice, typeof payload === 'string' ? payload : YAML.stringify(payload));
    expect(res.status).toBe(400);
    expect(res.json().type).toBe(`${PROBLEM}invalid-api-params`);
    expect(Object.keys(res.json().data)).toContain(field);
    expect(await countTemplates()).toBe(before);
  });

  it("refuses a node naming another user's session template", async () => {
    const bobsTemplate = await newSessionTemplate(bob, taskTemplate({ name: 'bobs' }));
    const res = await storeCluster(alice, clusterTemplate([{ role: 'main', session_template: bobsTemplate }]));
    expect(res.status).toBe(400);
    expect(res.json().data).toHaveProperty(['spec.nodes.0.session_template']);
  });
});

describe('POST /session/_/create-from-template', () => {
  it("starts a real session with the template's image, environ and tag", async () => {
    const id = await newSessionTemplate(alice, taskTemplate({ name: 'starter', environ: { X: 'from-template', Y: 'kept' }, tag: 'tmpl-tag' }));
    const res = await alice.client.request('POST', '/session/_/create-from-template', { body: { template_id: id, group: 'default', domain: 'default' } });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ status: 'RUNNING', created: true });
    expect(Object.keys(body).sort()).toEqual(['created', 'servicePorts', 'sessionId', 'sessionName', 'status']);
    expect(body.sessionName).toMatch(/^\w[\w.-]*\w$/);
    expect(body.sessionName.length).toBeGreaterThanOrEqual(4);
    expect(body.servicePorts.map((p: any) => p.name)).toContain('jupyter');
    try {
      const info = await alice.client.call('GET', `/session/${body.sessionName}`);
      expect(info).toMatchObject({ image: 'berth/python:3.11', status: 'RUNNING', userId: alice.uuid, tag: 'tmpl-tag', groupId: defaultGroupId });
      expect(info.environ).toMatchObject({ X: 'from-template', Y: 'kept' });
      expect(await run(alice, body.sessionName, 'import os; print(os.environ["X"])')).toEqual([['stdout', 'from-template\n']]);
    } finally {
      await alice.client.call('DELETE', `/session/${body.sessionName}`);
    }
  });

  it('lets request fields override the template', async () => {
    const id = await newSessionTemplate(alice, taskTemplate({ name: 'overridden', environ: { X: 'from-template', Y: 'kept' } }));
    const name = uniqueName('override');
    const res = await alice.client.request('POST', '/session/_/create-from-template', {
      body: { template_id: id, name, image: 'shell', group: 'default', domain: 'default', config: { environ: { X: 'from-request' } } },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ sessionName: name, status: 'RUNNING', created: true });
    try {
      const info = await alice.client.call('GET', `/session/${name}`);
      expect(info.image).toBe('berth/shell:5.2');
      expect(info.environ).toMatchObject({ X: 'from-request', Y: 'kept' });
      expect(await run(alice, name, 'echo "$X $Y"')).toEqual([['stdout', 'from-request kept\n']]);
    } finally {
      await alice.client.call('DELETE', `/session/${name}`);
    }
  });

  it('uses the startup command of a batch template', async () => {
    const id = await newSessionTemplate(alice, taskTemplate({ name: 'batchy', image: 'shell', spec: { session_type: 'batch', kernel: { image: 'shell', run: { startup_command: 'exit 0' } } } }));
    const res = await alice.client.request('POST', '/session/_/create-from-template', { body: { template_id: id, group: 'default', domain: 'default', enqueueOnly: true } });
    expect(res.status).toBe(200);
    const { sessionId } = res.json();
    const row = await t.app.db.selectFrom('sessions').select(['session_type', 'startup_command']).where('id', '=', sessionId).executeTakeFirstOrThrow();
    expect(row).toEqual({ session_type: 'batch', startup_command: 'exit 0' });
    await waitFor(async () => ['TERMINATED', 'ERROR', 'CANCELLED'].includes((await alice.client.call('GET', `/session/${sessionId}`)).status));
  });

  it('answers 404 for an unknown template and for a template of another user', async () => {
    const unknown = await alice.client.request('POST', '/session/_/create-from-template', { body: { template_id: '0123456789abcdef0123456789abcdef', group: 'default', domain: 'default' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json().type).toBe(`${PROBLEM}object-not-found`);
    const id = await newSessionTemplate(alice, taskTemplate({ name: 'not-for-bob' }));
    const foreign = await bob.client.request('POST', '/session/_/create-from-template', { body: { template_id: id, group: 'default', domain: 'default' } });
    expect(foreign.status).toBe(404);
    expect(await t.app.db.selectFrom('sessions').select('id').where('user_uuid', '=', bob.uuid).execute()).toEqual([]);
  });

  it('refuses invalid merged input with 400 before anything is stored', async () => {
    const id = await newSessionTemplate(alice, taskTemplate({ name: 'bad-input' }));
    const res = await alice.client.request('POST', '/session/_/create-from-template', { body: { template_id: id, name: 'x', group: 'default', domain: 'default' } });
    expect(res.status).toBe(400);
    expect(res.json().type).toBe(`${PROBLEM}invalid-api-params`);
    const noImage = await alice.client.request('POST', '/session/_/create-from-template', { body: { group: 'default', domain: 'default' } });
    expect(noImage.status).toBe(400);
    expect(noImage.json().data).toHaveProperty('image');
  });
});

describe('POST /session/_/create-cluster', () => {
  it('starts one session with a kernel per node replica', async () => {
    const main = await newSessionTemplate(alice, taskTemplate({ name: 'c-main', environ: { X: 'main-env' } }));
    const worker = await newSessionTemplate(alice, taskTemplate({ name: 'c-worker' }));
    const created = await storeCluster(alice, clusterTemplate([
      { role: 'main', session_template: main, replicas: 1 },
      { role: 'worker', session_template: worker, replicas: 1 },
    ]));
    const [cluster] = created.json();
    const name = uniqueName('cluster');
    const res = await alice.client.request('POST', '/session/_/create-cluster', {
      body: { clientSessionToken: name, template_id: cluster.id, type: 'interactive', group: 'default', domain: 'default', enqueueOnly: false, maxWaitSeconds: 0 },
    });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ sessionName: name, status: 'RUNNING', created: true });
    try {
      const kernels = await t.app.db.selectFrom('kernels').select(['cluster_role', 'cluster_hostname', 'status']).where('session_id', '=', body.sessionId).orderBy('cluster_role').execute();
      expect(kernels).toHaveLength(2);
      expect(kernels.every((k) => k.status === 'RUNNING')).toBe(true);
      // Kernels take their node's role (CONTRACT §5.1: other roles come from cluster templates).
      expect(kernels.map((k) => [k.cluster_role, k.cluster_hostname])).toEqual([['main', 'main1'], ['worker', 'worker1']]);
      const session = await t.app.db.selectFrom('sessions').select(['cluster_size', 'cluster_mode', 'image']).where('id', '=', body.sessionId).executeTakeFirstOrThrow();
      expect(session).toEqual({ cluster_size: 2, cluster_mode: 'single-node', image: 'berth/python:3.11' });
      expect(await run(alice, name, 'import os; print(os.environ["BERTH_CLUSTER_HOSTS"], os.environ["X"], os.environ["CLUSTER_WIDE"])')).toEqual([['stdout', 'main1,worker1 main-env yes\n']]);
    } finally {
      await alice.client.call('DELETE', `/session/${name}`);
    }
  });

  it('answers 404 for an unknown cluster template and 400 without a session name', async () => {
    const unknown = await alice.client.request('POST', '/session/_/create-cluster', {
      body: { clientSessionToken: uniqueName('nope'), template_id: '0123456789abcdef0123456789abcdef', type: 'interactive', group: 'default', domain: 'default', enqueueOnly: false, maxWaitSeconds: 0 },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json().type).toBe(`${PROBLEM}object-not-found`);
    const nameless = await alice.client.request('POST', '/session/_/create-cluster', { body: { template_id: '0123456789abcdef0123456789abcdef', group: 'default', domain: 'default' } });
    expect(nameless.status).toBe(400);
    expect(nameless.json().data).toHaveProperty('clientSessionToken');
  });

  it('refuses a cluster whose session template was deleted since', async () => {
    const main = await newSessionTemplate(alice, taskTemplate({ name: 'short-lived' }));
    const [cluster] = (await storeCluster(alice, clusterTemplate([{ role: 'main', session_template: main }]))).json();
    await alice.client.call('DELETE', `/template/session/${main}`);
    const res = await alice.client.request('POST', '/session/_/create-cluster', { body: { clientSessionToken: uniqueName('orphan'), template_id: cluster.id, group: 'default', domain: 'default' } });
    expect(res.status).toBe(400);
    expect(res.json().data).toHaveProperty(['spec.nodes.0.session_template']);
  });
});

describe('afterwards', () => {
  it('leaves no live session behind', async () => {
    const live = () => t.app.db.selectFrom('sessions').select(['name', 'status']).where('status', 'not in', ['TERMINATED', 'CANCELLED', 'ERROR']).execute();
    await waitFor(async () => (await live()).length === 0).catch(() => undefined);
    expect(await live()).toEqual([]);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not reached in time');
}
