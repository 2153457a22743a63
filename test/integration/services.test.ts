/**
 * Model services (CONTRACT §13) end to end: a model folder holding a definition and a tiny Python model server,
 * real inference sessions started by the scaler, real health probes, the endpoint on the app proxy with tokens
 * and traffic ratios, scaling, failing starts and their errors, destruction; then every 400 rule, ownership and
 * the frozen manager.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { MODEL_DEFINITION, MODEL_SERVER_PY, send, uploadText } from '../helpers/model-folder';
import { appProxySecret } from '../../server/apps/tokens';

const PROBLEM = 'https://errors.berth.dev/';

/** A server that listens but never passes its check: its route stays provisioning. */
const NEVER_HEALTHY = `
models:
  - name: never
    service:
      start_command: ["/usr/bin/python3", "/home/work/model/server.py"]
      health_check:
        path: /no-such-path-but-health-wants-201
        expected_status_code: 201
        initial_delay: 600
`;

/** Checked twice a second: a stopped server is unhealthy within about a second. */
const FAST_CHECK = MODEL_DEFINITION.replace('max_retries: 3', 'max_retries: 2').replace('expected_status_code: 200', 'expected_status_code: 200\n        interval: 0.5');

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestBerth({}, { roles: ['manager', 'apps'] });
  alice = await t.createUser();
  bob = await t.createUser();
  await alice.client.call('POST', '/folders', { body: { name: 'answer-model', usage_mode: 'model' } });
  await upload('answer-model', 'server.py', MODEL_SERVER_PY);
  await upload('answer-model', 'model-definition.yaml', MODEL_DEFINITION);
  await upload('answer-model', 'never-healthy.yaml', NEVER_HEALTHY);
  await upload('answer-model', 'fast-check.yaml', FAST_CHECK);
  await upload('answer-model', 'broken.yaml', 'models: [unclosed');
  await upload('answer-model', 'wrong-shape.json', JSON.stringify({ models: [{ service: { health_check: { path: 'no-slash' } } }] }));
  await alice.client.call('POST', '/folders', { body: { name: 'broken-model', usage_mode: 'model' } });
  await alice.client.call('POST', '/folders', { body: { name: 'plain-data', usage_mode: 'general' } });
}, 120_000);
afterAll(() => t?.stop());

const upload = (folder: string, file: string, content: string) => uploadText(alice.client, folder, file, content);

/** Polls `probe` until it answers something truthy, or fails after the deadline. */
async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, deadlineMs = 60_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function serviceBody(name: string, extra: Record<string, unknown> = {}, config: Record<string, unknown> = {}) {
  return {
    name, desired_session_count: 1, image: 'python', arch: 'x86_64', group: 'default', domain: 'default', cluster_size: 1, cluster_mode: 'single-node',
    open_to_public: false, ...extra,
    config: { model: 'answer-model', model_mount_destination: '/home/work/model', ...config },
  };
}

async function healthyRoutes(id: string, count: number, who = alice) {
  return until(`${count} healthy routes`, async () => {
    const info = await who.client.call('GET', `/services/${id}`);
    return info.active_routes.length === count ? info : null;
  }, 90_000);
}

function expectProblem(res: { status: number; json(): any; text: string }, status: number, slug: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.json().type).toBe(PROBLEM + slug);
}

describe('a model service, end to end', () => {
  let id: string;
  let url: string;
  let token: string;

  it('is created from a model folder and answers ServeInfo', async () => {
    const info = await alice.client.call('POST', '/services', { body: serviceBody('answer') });
    id = info.endpoint_id;
    expect(info).toMatchObject({
      name: 'answer', desired_session_count: 1, model_definition_path: null, active_routes: [], is_public: false, runtime_variant: 'custom', extra_mounts: [],
      service_endpoint: `${t.berth.appsUrl}/service/${id}`,
    });
    const folder = await alice.client.call('GET', '/folders/answer-model');
    expect(info.model_id.replace(/-/g, '')).toBe(folder.id);
    url = info.service_endpoint;
  });

  it('gets a healthy route: a real inference session with the model folder mounted', async () => {
    const info = await healthyRoutes(id, 1);
    expect(info.active_routes[0]).toMatchObject({ route_id: expect.any(String), session_id: expect.any(String), traffic_ratio: 1 });
    const session = await alice.client.call('GET', `/session/${info.active_routes[0].session_id}`);
    expect(session.status).toBe('RUNNING');
    const row = await t.app.db.selectFrom('sessions').select(['session_type', 'mounts']).where('id', '=', info.active_routes[0].session_id).executeTakeFirstOrThrow();
    expect(row.session_type).toBe('inference');
    expect(row.mounts).toEqual([expect.objectContaining({ name: 'answer-model', kernelPath: '/home/work/model', permission: 'ro' })]);
    const list = await alice.client.call('GET', '/services');
    expect(list).toEqual([{ id, name: 'answer', desired_session_count: 1, active_route_count: 1, service_endpoint: url, is_public: false }]);
    expect(await alice.client.call('GET', '/services', { query: { name: 'nothing-like-it' } })).toEqual([]);
  });

  it('refuses callers of the endpoint without a valid token, and serves those with one', async () => {
    expect((await send('GET', `${url}/predict`)).status).toBe(401);
    expect((await send('GET', `${url}/predict`, { Authorization: 'BackendAI not-a-token' })).status).toBe(401);
    const expired = await new SignJWT({ typ: 'berth-service' }).setProtectedHeader({ alg: 'HS256' }).setSubject(id).setExpirationTime(Math.floor(Date.now() / 1000) - 60).sign(appProxySecret(t.app));
    expect((await send('GET', `${url}/predict`, { Authorization: `Bearer ${expired}` })).status).toBe(401);
    const otherService = await new SignJWT({ typ: 'berth-service' }).setProtectedHeader({ alg: 'HS256' }).setSubject('00000000-0000-4000-8000-000000000000').setExpirationTime('1h').sign(appProxySecret(t.app));
    expect((await send('GET', `${url}/predict`, { Authorization: `Bearer ${otherService}` })).status).toBe(401);

    ({ token } = await alice.client.call('POST', `/services/${id}/token`, { body: { duration: '1h' } }));
    for (const scheme of ['BackendAI', 'Bearer']) {
      const res = await send('GET', `${url}/predict?x=1`, { Authorization: `${scheme} ${token}`, Cookie: 'next-auth.session-token=dash' });
      expect(res.status, res.body).toBe(200);
      const answer = JSON.parse(res.body);
      expect(answer).toMatchObject({ answer: 42, path: '/predict?x=1', authorization: null, cookie: null });
    }
    const until = Math.floor(Date.now() / 1000) + 3600;
    const byEpoch = await alice.client.call('POST', `/services/${id}/token`, { body: { valid_until: until } });
    expect((await send('GET', `${url}/`, { Authorization: `Bearer ${byEpoch.token}` })).status).toBe(200);
  });

  it('scales to 2, balances by traffic ratio, and scales back to 1', async () => {
    expect(await alice.client.call('POST', `/services/${id}/scale`, { body: { to: 2 } })).toEqual({ current_route_count: 1, target_count: 2 });
    const info = await healthyRoutes(id, 2);
    const [first, second] = info.active_routes;
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) seen.add(JSON.parse((await send('GET', `${url}/who`, { Authorization: `Bearer ${token}` })).body).route);
    expect(seen).toEqual(new Set([first.route_id, second.route_id]));

    expect(await alice.client.call('PUT', `/services/${id}/routings/${first.route_id}`, { body: { traffic_ratio: 0 } })).toEqual({ success: true });
    const after = await alice.client.call('GET', `/services/${id}`);
    expect(after.active_routes.find((r: any) => r.route_id === first.route_id).traffic_ratio).toBe(0);
    for (let i = 0; i < 10; i++) {
      expect(JSON.parse((await send('GET', `${url}/who`, { Authorization: `Bearer ${token}` })).body).route).toBe(second.route_id);
    }
    await alice.client.call('PUT', `/services/${id}/routings/${first.route_id}`, { body: { traffic_ratio: 1 } });

    expect(await alice.client.call('POST', `/services/${id}/scale`, { body: { to: 1 } })).toEqual({ current_route_count: 2, target_count: 1 });
    await until('one route left', async () => (await t.app.db.selectFrom('routings').select('id').where('endpoint_id', '=', id).execute()).length === 1);
    const left = await healthyRoutes(id, 1);
    const gone = [first, second].find((r) => r.route_id !== left.active_routes[0].route_id)!;
    await until('the surplus session terminated', async () => (await t.app.db.selectFrom('sessions').select('status').where('id', '=', gone.session_id).executeTakeFirstOrThrow()).status === 'TERMINATED');
    expect((await t.app.db.selectFrom('sessions').select('status_info').where('id', '=', gone.session_id).executeTakeFirstOrThrow()).status_info).toBe('service-scaled-down');
  });

  it('removes a healthy route with DELETE /routings and lowers the desired count', async () => {
    const before = await alice.client.call('GET', `/services/${id}`);
    expect(await alice.client.call('DELETE', `/services/${id}/routings/${before.active_routes[0].route_id}`)).toEqual({ success: true });
    const after = await alice.client.call('GET', `/services/${id}`);
    expect(after.desired_session_count).toBe(0);
    expect(after.active_routes).toEqual([]);
    expect((await send('GET', `${url}/predict`, { Authorization: `Bearer ${token}` })).status).toBe(503);
    await alice.client.call('POST', `/services/${id}/scale`, { body: { to: 1 } });
    await healthyRoutes(id, 1);
    expect(await alice.client.call('POST', `/services/${id}/sync`)).toEqual({ success: true });
  });

  it('replaces a route whose session was terminated, without counting a failed start', async () => {
    const before = await alice.client.call('GET', `/services/${id}`);
    const old = before.active_routes[0];
    await alice.client.call('DELETE', `/session/${old.session_id}`);
    const after = await until('a replacement route', async () => {
      const info = await alice.client.call('GET', `/services/${id}`);
      return info.active_routes.length === 1 && info.active_routes[0].route_id !== old.route_id ? info : null;
    }, 90_000);
    expect(after.active_routes[0].session_id).not.toBe(old.session_id);
    expect(await alice.client.call('GET', `/services/${id}/errors`)).toEqual({ errors: [], retries: 0 });
  });

  it('is destroyed on DELETE: its sessions end and it disappears', async () => {
    const sessions = (await t.app.db.selectFrom('routings').select('session_id').where('endpoint_id', '=', id).execute()).map((r) => r.session_id!);
    expect(await alice.client.call('DELETE', `/services/${id}`)).toEqual({ success: true });
    await until('destroyed', async () => (await t.app.db.selectFrom('endpoints').select('lifecycle_stage').where('id', '=', id).executeTakeFirstOrThrow()).lifecycle_stage === 'destroyed');
    for (const sessionId of sessions) {
      expect((await t.app.db.selectFrom('sessions').select('status').where('id', '=', sessionId).executeTakeFirstOrThrow()).status).toBe('TERMINATED');
    }
    expectProblem(await alice.client.request('GET', `/services/${id}`), 404, 'object-not-found');
    expect(await alice.client.call('GET', '/services')).toEqual([]);
    expect((await send('GET', `${url}/predict`, { Authorization: `Bearer ${token}` })).status).toBe(404);
    // The name is free again once the service is destroyed.
    const again = await alice.client.call('POST', '/services', { body: serviceBody('answer', { desired_session_count: 0 }) });
    await alice.client.call('DELETE', `/services/${again.endpoint_id}`);
  });
});

const CLI = path.resolve(__dirname, '../../server/client/cli/main.ts');
const TSX = pathToFileURL(path.resolve(__dirname, '../../node_modules/tsx/dist/loader.mjs')).href;

function cli(who: TestUser, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
      env: { ...process.env, BERTH_ENDPOINT: t.url, BERTH_CLI_CONFIG: '/nonexistent/berth-cli.json', BERTH_ACCESS_KEY: who.accessKey, BERTH_SECRET_KEY: who.secretKey },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('berth service (CLI)', () => {
  it('creates, lists, scales, tokens and deletes a service', async () => {
    const created = await cli(alice, ['service', 'create', 'cli-answer', '--model', 'answer-model', '--replicas', '0']);
    expect(created.code, created.stderr).toBe(0);
    const info = JSON.parse(created.stdout);
    expect(info).toMatchObject({ name: 'cli-answer', desired_session_count: 0 });
    const listed = JSON.parse((await cli(alice, ['service', 'list'])).stdout);
    expect(listed.map((s: any) => s.name)).toContain('cli-answer');
    expect(JSON.parse((await cli(alice, ['service', 'token', info.endpoint_id, '--duration', '2h'])).stdout).token).toEqual(expect.any(String));
    const bad = await cli(alice, ['service', 'scale', info.endpoint_id, '-1']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('400');
    expect(JSON.parse((await cli(alice, ['service', 'delete', info.endpoint_id])).stdout)).toEqual({ success: true });
  });
});

describe('a public service', () => {
  it('answers without a token', async () => {
    const info = await alice.client.call('POST', '/services', { body: serviceBody('public-answer', { open_to_public: true }) });
    expect(info.is_public).toBe(true);
    await healthyRoutes(info.endpoint_id, 1);
    const res = await send('GET', `${info.service_endpoint}/predict`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).answer).toBe(42);
    await alice.client.call('DELETE', `/services/${info.endpoint_id}`);
  });
});

describe('a route that stops answering', () => {
  it('becomes unhealthy, leaves the endpoint, and is the first to go when scaling down', async () => {
    const info = await alice.client.call('POST', '/services', { body: serviceBody('flaky', {}, { model_definition_path: 'fast-check.yaml' }) });
    const id = info.endpoint_id;
    const { token } = await alice.client.call('POST', `/services/${id}/token`, { body: { duration: '1h' } });
    const [sick] = (await healthyRoutes(id, 1)).active_routes;
    const status = async () => (await alice.client.call('POST', '/admin/gql', { body: { query: `{ endpoint(endpoint_id: "${id}") { status } }` } })).data.endpoint.status;
    expect(await status()).toBe('HEALTHY');
    // The only route takes the request, and fails its health check from then on.
    expect((await send('GET', `${info.service_endpoint}/sick`, { Authorization: `Bearer ${token}` })).status).toBe(200);
    await until('the route unhealthy', async () => (await t.app.db.selectFrom('routings').select('status').where('id', '=', sick.route_id).executeTakeFirstOrThrow()).status === 'unhealthy');
    expect((await alice.client.call('GET', `/services/${id}`)).active_routes).toEqual([]);
    expect(await status()).toBe('UNHEALTHY');
    expect((await send('GET', `${info.service_endpoint}/x`, { Authorization: `Bearer ${token}` })).status).toBe(503);

    await alice.client.call('POST', `/services/${id}/scale`, { body: { to: 2 } });
    const [fresh] = (await healthyRoutes(id, 1)).active_routes;
    expect(fresh.route_id).not.toBe(sick.route_id);
    expect(await status()).toBe('DEGRADED');
    await alice.client.call('POST', `/services/${id}/scale`, { body: { to: 1 } });
    await until('the unhealthy route gone', async () => !(await t.app.db.selectFrom('routings').select('id').where('id', '=', sick.route_id).executeTakeFirst()));
    expect((await alice.client.call('GET', `/services/${id}`)).active_routes).toEqual([fresh]);
    expect((await send('GET', `${info.service_endpoint}/x`, { Authorization: `Bearer ${token}` })).status).toBe(200);
    await alice.client.call('DELETE', `/services/${id}`);
  });
});

describe('a service that fails to start', () => {
  it('records each failed start, stops after 5, and starts afresh once the errors are cleared', async () => {
    const info = await alice.client.call('POST', '/services', { body: serviceBody('broken', { startup_command: 'echo "model weights missing" >&2; exit 3' }, { model: 'broken-model' }) });
    const id = info.endpoint_id;
    const errors = await until('5 failed starts', async () => {
      const e = await alice.client.call('GET', `/services/${id}/errors`);
      return e.retries >= 5 ? e : null;
    }, 110_000);
    expect(errors.retries).toBe(5);
    expect(errors.errors).toHaveLength(5);
    for (const e of errors.errors) {
      expect(e.session_id).toEqual(expect.any(String));
      expect(e.error).toMatchObject({ name: 'ModelServerExited', exit_code: 3, output: expect.stringContaining('model weights missing') });
    }
    // No sixth attempt: nothing provisioning, and every failed route's session has ended.
    const routes = await t.app.db.selectFrom('routings').select(['status', 'session_id']).where('endpoint_id', '=', id).execute();
    expect(routes.every((r) => r.status === 'failed_to_start')).toBe(true);
    await until('failed sessions terminated', async () => {
      const statuses = await t.app.db.selectFrom('sessions').select('status').where('id', 'in', routes.map((r) => r.session_id!)).execute();
      return statuses.every((s) => s.status === 'TERMINATED');
    });

    await alice.client.call('POST', `/services/${id}/scale`, { body: { to: 0 } });
    expect(await alice.client.call('POST', `/services/${id}/errors/clear`)).toEqual({});
    expect(await alice.client.call('GET', `/services/${id}/errors`)).toEqual({ errors: [], retries: 0 });
    await alice.client.call('DELETE', `/services/${id}`);
  }, 120_000);
});

describe('bad input', () => {
  let id: string;
  beforeAll(async () => {
    id = (await alice.client.call('POST', '/services', { body: serviceBody('never-healthy', {}, { model_definition_path: 'never-healthy.yaml' }) })).endpoint_id;
  });
  afterAll(async () => {
    await alice.client.call('DELETE', `/services/${id}`);
  });

  it('refuses a name in use by a service that is not destroyed', async () => {
    expectProblem(await alice.client.request('POST', '/services', { body: serviceBody('never-healthy') }), 400, 'invalid-api-params');
    expectProblem(await bob.client.request('POST', '/services', { body: { ...serviceBody('never-healthy'), config: { model: 'x', model_mount_destination: '/home/work/model' } } }), 400, 'invalid-api-params');
  });

  it('refuses a model that is not a model folder, or no folder', async () => {
    const plain = await alice.client.request('POST', '/services', { body: serviceBody('plain-one', {}, { model: 'plain-data' }) });
    expectProblem(plain, 400, 'invalid-api-params');
    expect(plain.json().data).toEqual({ 'config.model': 'not a model folder' });
    expectProblem(await alice.client.request('POST', '/services', { body: serviceBody('nofolder', {}, { model: 'no-such-folder' }) }), 400, 'invalid-api-params');
    // Another user's model folder is not theirs to serve.
    expectProblem(await bob.client.request('POST', '/services', { body: serviceBody('bobs-one') }), 400, 'invalid-api-params');
  });

  it('validates the request as an inference session create', async () => {
    for (const [extra, config] of [
      [{ image: 'no-such-image' }, {}],
      [{ group: 'no-such-project' }, {}],
      [{ domain: 'elsewhere' }, {}],
      [{}, { resources: { 'no.such.slot': 1 } }],
      [{}, { resources: { cpu: -1 } }],
      [{}, { model_mount_destination: '/etc/model' }],
      [{}, { scaling_group: 'no-such-group' }],
      [{ cluster_size: 0 }, {}],
      [{ desired_session_count: -1 }, {}],
      [{ desired_session_count: 11 }, {}],
      [{ name: 'bad name!' }, {}],
      [{ runtime_variant: 'magic' }, {}],
      [{}, { model_definition_path: '../escape.yaml' }],
      [{}, { model_definition_path: 'missing.yaml' }],
      [{}, { model_definition_path: 'broken.yaml' }],
      [{}, { model_definition_path: 'wrong-shape.json' }],
      [{ callback_url: 'not a url' }, {}],
      [{}, { extra_mounts: { 'no-such-folder': { permission: 'ro' } } }],
    ] as [Record<string, unknown>, Record<string, unknown>][]) {
      const res = await alice.client.request('POST', '/services', { body: serviceBody('validated', extra, config) });
      expect(res.status, `${JSON.stringify({ extra, config })}: ${res.text}`).toBe(400);
    }
    // No start command anywhere.
    expect((await alice.client.request('POST', '/services', { body: serviceBody('nostart', {}, { model: 'broken-model' }) })).status).toBe(400);
    expect(await alice.client.call('GET', '/services')).toEqual([expect.objectContaining({ id })]);
  });

  it('refuses scaling below 0 or above the per-service maximum', async () => {
    expectProblem(await alice.client.request('POST', `/services/${id}/scale`, { body: { to: -1 } }), 400, 'invalid-api-params');
    expectProblem(await alice.client.request('POST', `/services/${id}/scale`, { body: { to: 11 } }), 400, 'invalid-api-params');
    expectProblem(await alice.client.request('POST', `/services/${id}/scale`, { body: { to: 'two' } }), 400, 'invalid-api-params');
  });

  it('refuses tokens without an expiry, with a bad duration or a past expiry', async () => {
    expectProblem(await alice.client.request('POST', `/services/${id}/token`, { body: {} }), 400, 'invalid-api-params');
    expectProblem(await alice.client.request('POST', `/services/${id}/token`, { body: { duration: 'forever' } }), 400, 'invalid-api-params');
    expectProblem(await alice.client.request('POST', `/services/${id}/token`, { body: { duration: '0s' } }), 400, 'invalid-api-params');
    expectProblem(await alice.client.request('POST', `/services/${id}/token`, { body: { valid_until: Math.floor(Date.now() / 1000) - 10 } }), 400, 'invalid-api-params');
    for (const duration of ['1y', '30d', '12h', '90m', '3600s', '1d2h']) {
      expect((await alice.client.request('POST', `/services/${id}/token`, { body: { duration } })).status, duration).toBe(200);
    }
  });

  it('refuses removing a route that is still provisioning, and negative traffic ratios', async () => {
    const route = await until('a provisioning route', () => t.app.db.selectFrom('routings').selectAll().where('endpoint_id', '=', id).where('status', '=', 'provisioning').executeTakeFirst());
    expectProblem(await alice.client.request('DELETE', `/services/${id}/routings/${route.id}`), 400, 'invalid-api-params');
    expectProblem(await alice.client.request('PUT', `/services/${id}/routings/${route.id}`, { body: { traffic_ratio: -1 } }), 400, 'invalid-api-params');
    expectProblem(await alice.client.request('PUT', `/services/${id}/routings/00000000-0000-4000-8000-000000000000`, { body: { traffic_ratio: 1 } }), 404, 'object-not-found');
    expect((await alice.client.call('GET', `/services/${id}`)).active_routes).toEqual([]);
  });

  it('hides a service from other users (404) and shows it to the superadmin', async () => {
    for (const [method, path, body] of [
      ['GET', `/services/${id}`, undefined],
      ['DELETE', `/services/${id}`, undefined],
      ['GET', `/services/${id}/errors`, undefined],
      ['POST', `/services/${id}/errors/clear`, {}],
      ['POST', `/services/${id}/scale`, { to: 1 }],
      ['POST', `/services/${id}/sync`, {}],
      ['POST', `/services/${id}/token`, { duration: '1h' }],
      ['PUT', `/services/${id}/routings/00000000-0000-4000-8000-000000000000`, { traffic_ratio: 1 }],
      ['DELETE', `/services/${id}/routings/00000000-0000-4000-8000-000000000000`, undefined],
    ] as [string, string, unknown][]) {
      expectProblem(await bob.client.request(method, path, body === undefined ? {} : { body }), 404, 'object-not-found');
    }
    expect(await bob.client.call('GET', '/services')).toEqual([]);
    expect((await t.admin.call('GET', `/services/${id}`)).name).toBe('never-healthy');
    expectProblem(await alice.client.request('GET', '/services/not-a-uuid'), 404, 'object-not-found');
  });

  it('is visible in GraphQL to its owner and admins, with routes, tokens and a derived status', async () => {
    const gql = (who: TestUser | TestBerth['admin'], query: string) => ('client' in who ? who.client : who).call('POST', '/admin/gql', { body: { query } });
    const query = `{ endpoint(endpoint_id: "${id}") { name status lifecycle_stage replicas url open_to_public routings { status session } }
      endpoint_list(filter: "name == \\"never-healthy\\"") { total_count items { endpoint_id } }
      routing_list(endpoint_id: "${id}") { total_count items { status endpoint } }
      endpoint_token_list(endpoint_id: "${id}") { total_count items { endpoint_id token valid_until } } }`;
    const mine = await gql(alice, query);
    expect(mine.errors).toBeUndefined();
    expect(mine.data.endpoint).toMatchObject({ name: 'never-healthy', status: 'PROVISIONING', lifecycle_stage: 'created', replicas: 1, url: `${t.berth.appsUrl}/service/${id}`, open_to_public: false });
    expect(mine.data.endpoint.routings).toEqual([expect.objectContaining({ status: 'provisioning', session: expect.any(String) })]);
    expect(mine.data.endpoint_list).toEqual({ total_count: 1, items: [{ endpoint_id: id }] });
    expect(mine.data.routing_list.items).toEqual([{ status: 'provisioning', endpoint: id }]);
    expect(mine.data.endpoint_token_list.total_count).toBeGreaterThan(0);
    expect(mine.data.endpoint_token_list.items[0]).toMatchObject({ endpoint_id: id, token: null });
    const theirs = await gql(bob, query);
    expect(theirs.data.endpoint).toBeNull();
    expect(theirs.data.endpoint_list.total_count).toBe(0);
    expect(theirs.data.routing_list.total_count).toBe(0);
    expect(theirs.data.endpoint_token_list.total_count).toBe(0);
    expect((await gql(t.admin, query)).data.endpoint.name).toBe('never-healthy');
    const tooMany = await gql(alice, `mutation { modify_endpoint(endpoint_id: "${id}", props: {replicas: 11}) { ok msg } }`);
    expect(tooMany.data.modify_endpoint.ok).toBe(false);
    const publicNow = await gql(alice, `mutation { modify_endpoint(endpoint_id: "${id}", props: {open_to_public: true}) { ok endpoint { open_to_public } } }`);
    expect(publicNow.data.modify_endpoint).toEqual({ ok: true, endpoint: { open_to_public: true } });
    expect((await alice.client.call('GET', `/services/${id}`)).is_public).toBe(true);
    await gql(alice, `mutation { modify_endpoint(endpoint_id: "${id}", props: {open_to_public: false}) { ok } }`);
  });

  it('lets an admin create a service for a user (owner_access_key), and no one else', async () => {
    const made = await t.admin.call('POST', '/services', { body: serviceBody('delegated', { desired_session_count: 0, owner_access_key: alice.accessKey }) });
    expect((await alice.client.call('GET', '/services', { query: { name: 'delegated' } })).map((s: any) => s.id)).toEqual([made.endpoint_id]);
    expect(await alice.client.call('GET', `/services/${made.endpoint_id}`)).toMatchObject({ name: 'delegated', desired_session_count: 0 });
    expectProblem(await bob.client.request('POST', '/services', { body: serviceBody('stolen', { owner_access_key: alice.accessKey }) }), 403, 'generic-forbidden');
    expect(await alice.client.call('DELETE', `/services/${made.endpoint_id}`)).toEqual({ success: true });
  });

  it('refuses creating services while the manager is frozen, but serves the others', async () => {
    expect(await t.admin.call('PUT', '/manager/status', { body: { status: 'frozen' } })).toEqual({});
    try {
      expectProblem(await alice.client.request('POST', '/services', { body: serviceBody('frozen-one') }), 503, 'server-frozen');
      expect((await alice.client.request('GET', '/services')).status).toBe(200);
      expect((await alice.client.request('GET', `/services/${id}`)).status).toBe(200);
      expect((await alice.client.request('POST', `/services/${id}/token`, { body: { duration: '1h' } })).status).toBe(200);
      expect((await alice.client.request('GET', `/services/${id}/errors`)).status).toBe(200);
    } finally {
      await t.admin.call('PUT', '/manager/status', { body: { status: 'running' } });
    }
  });
});
