/**
 * Operating Berth (issue 14): Prometheus metrics scraped with the token and parsed by a real parser of the text
 * format (parse-prometheus-text-format), who may scrape, the health probes, and the audit log (REST mutations,
 * logins and failed logins, GraphQL mutations, audit_log_list and its refusals, pruning).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { BerthClient } from '../../server/client/client';
import { pruneAuditLog } from '../../server/audit/list';
import { startTestBerth, ADMIN_PASSWORD, type TestBerth, type TestUser } from '../helpers/berth';

const TOKEN = 'metrics-token-0123456789abcdef';

let t: TestBerth;
let alice: TestUser;
let domainAdmin: TestUser;

beforeAll(async () => {
  t = await startTestBerth({ metricsToken: TOKEN });
  alice = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin' });
});
afterAll(() => t?.stop());

async function scrape(): Promise<Map<string, ParsedFamily>> {
  const res = await t.anonymous.request('GET', '/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(String(res.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
  return new Map(parsePrometheusTextFormat(res.text).map((f) => [f.name, f]));
}

function samples(families: Map<string, ParsedFamily>, name: string) {
  const family = families.get(name);
  expect(family, `metric ${name}`).toBeDefined();
  return family!.metrics;
}

interface AuditItem {
  created_at: string;
  actor_email: string | null;
  access_key: string | null;
  action: string;
  target: string | null;
  status: string;
  request_id: string;
  client_ip: string;
}

async function auditLog(client: BerthClient, filter: string, extra = '') {
  return client.call('POST', '/admin/gql', {
    body: {
      query: `query($filter: String) { audit_log_list(limit: 100, offset: 0, filter: $filter${extra}) { total_count items { created_at actor_email access_key action target status request_id client_ip } } }`,
      variables: { filter },
    },
  });
}

async function auditItems(filter: string): Promise<AuditItem[]> {
  const answer = await auditLog(t.admin, filter);
  expect(answer.errors).toBeUndefined();
  return answer.data.audit_log_list.items;
}

describe('GET /metrics', () => {
  it('serves every metric of the issue in the text format, with route patterns as labels', async () => {
    // Requests whose paths hold names and random text: none of it may become a label value.
    await alice.client.request('GET', '/folders/secret-folder-name-4711');
    await alice.client.request('GET', '/no/such/path/zq81x');
    await t.anonymous.request('GET', '/healthz');
    const families = await scrape();
    for (const name of [
      'berth_http_requests_total', 'berth_http_request_duration_seconds', 'berth_sessions', 'berth_kernels', 'berth_session_start_seconds',
      'berth_scheduler_pass_seconds', 'berth_scheduler_pending_sessions', 'berth_agent_slots', 'berth_agents', 'berth_app_proxy_requests_total',
      'berth_ws_connections', 'berth_storage_bytes_total', 'process_cpu_user_seconds_total', 'nodejs_heap_size_total_bytes',
    ]) {
      expect(families.has(name), name).toBe(true);
    }
    expect(families.get('berth_http_requests_total')!.type).toBe('COUNTER');
    expect(families.get('berth_http_request_duration_seconds')!.type).toBe('HISTOGRAM');
    expect(families.get('berth_sessions')!.type).toBe('GAUGE');

    const requests = samples(families, 'berth_http_requests_total');
    expect(requests).toContainEqual({ value: '1', labels: { method: 'GET', route: '/folders/{name}', status: '404' } });
    expect(requests).toContainEqual({ value: '1', labels: { method: 'GET', route: '/healthz', status: '200' } });
    expect(requests.some((s) => s.labels?.route === 'unmatched' && s.labels.status === '404')).toBe(true);
    const allLabelValues = [...families.values()].flatMap((f) => f.metrics.flatMap((s) => Object.values(s.labels ?? {})));
    expect(allLabelValues.some((v) => v.includes('secret-folder') || v.includes('zq81x'))).toBe(false);

    const agentId = [...t.app.agents.keys()][0];
    expect(samples(families, 'berth_agents')).toContainEqual({ value: '1', labels: { status: 'ALIVE' } });
    const slots = samples(families, 'berth_agent_slots');
    expect(slots.find((s) => s.labels?.agent === agentId && s.labels.slot === 'cpu' && s.labels.kind === 'capacity')?.value).toMatch(/^[1-9]/);
    expect(slots.some((s) => s.labels?.agent === agentId && s.labels.slot === 'mem' && s.labels.kind === 'used')).toBe(true);
    expect(samples(families, 'berth_app_proxy_requests_total')).toContainEqual({ value: '0', labels: { kind: 'service' } });
    expect(samples(families, 'berth_storage_bytes_total')).toContainEqual({ value: '0', labels: { direction: 'upload' } });
  });

  it('counts a started session, its kernel and the scheduler pass that placed it', async () => {
    const name = `metrics-${Date.now().toString(36)}`;
    const created = await alice.client.call('POST', '/session', { body: { name, image: 'shell', group: 'default' } });
    expect(created.status).toBe('RUNNING');
    try {
      const families = await scrape();
      expect(samples(families, 'berth_sessions')).toContainEqual({ value: '1', labels: { status: 'RUNNING' } });
      const agentId = [...t.app.agents.keys()][0];
      expect(samples(families, 'berth_kernels')).toContainEqual({ value: '1', labels: { status: 'RUNNING', agent: agentId } });
      expect(samples(families, 'berth_scheduler_pending_sessions')).toEqual([{ value: '0' }]);
      const starts = (await t.anonymous.request('GET', '/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } })).text;
      expect(Number(/^berth_session_start_seconds_count (\d+)/m.exec(starts)?.[1])).toBeGreaterThanOrEqual(1);
      expect(Number(/^berth_scheduler_pass_seconds_count\{pass="schedule"\} (\d+)/m.exec(starts)?.[1])).toBeGreaterThanOrEqual(1);
    } finally {
      await alice.client.call('DELETE', `/session/${name}`);
    }
  });

  it('lets a signed superadmin scrape, and refuses everyone else', async () => {
    expect((await t.admin.request('GET', '/metrics')).status).toBe(200);
    const user = await alice.client.request('GET', '/metrics');
    expect(user.status).toBe(403);
    expect(user.json().type).toBe('https://errors.berth.dev/insufficient-privilege');
    expect((await domainAdmin.client.request('GET', '/metrics')).status).toBe(403);
    const bare = await t.anonymous.request('GET', '/metrics');
    expect(bare.status).toBe(401);
    expect(String(bare.headers['content-type'])).toContain('application/problem+json');
    const forged = new BerthClient({ endpoint: t.url, accessKey: t.adminCreds.accessKey, secretKey: 'not-the-secret-key-at-all-0000000000000' });
    expect((await forged.request('GET', '/metrics')).status).toBe(401);
    forged.close();
  });

  it('answers a wrong token 401 and audits it', async () => {
    for (const header of [`Bearer ${TOKEN}x`, 'Bearer ', `bearer wrong-${Date.now()}`]) {
      const res = await t.anonymous.request('GET', '/metrics', { headers: { Authorization: header } });
      expect(res.status).toBe(401);
      expect(res.json()).toMatchObject({ type: 'https://errors.berth.dev/auth-failed' });
    }
    const refused = await auditItems('action == "GET /metrics" & status == "401"');
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(refused[0]).toMatchObject({ actor_email: null, access_key: null, target: null });
    expect(refused[0].client_ip).toMatch(/127\.0\.0\.1/);
    const denied = await auditItems(`action == "GET /metrics" & status == "403" & actor_email == "${alice.email}"`);
    expect(denied[0]).toMatchObject({ access_key: alice.accessKey });
  });

  it('refuses a token when none is configured', async () => {
    const other = await startTestBerth();
    try {
      const res = await other.anonymous.request('GET', '/metrics', { headers: { Authorization: 'Bearer anything' } });
      expect(res.status).toBe(401);
      expect((await other.admin.request('GET', '/metrics')).status).toBe(200);
    } finally {
      await other.stop();
    }
  });
});

describe('health probes', () => {
  it('answers /healthz and /readyz unsigned', async () => {
    expect((await t.anonymous.call('GET', '/healthz'))).toEqual({ status: 'ok' });
    const ready = await t.anonymous.call('GET', '/readyz');
    const agentId = [...t.app.agents.keys()][0];
    expect(ready).toMatchObject({ status: 'ready', checks: { database: { ok: true }, 'listener:manager': { ok: true }, [`agent:${agentId}`]: { ok: true, detail: 'ALIVE' } } });
  });
});

describe('the audit log', () => {
  it('records a REST mutation with its caller, route pattern, target and status, and no body', async () => {
    const name = `audited-${Date.now().toString(36)}`;
    const created = await alice.client.request('POST', '/folders', { body: { name } });
    expect(created.status).toBe(200);
    const again = await alice.client.request('POST', '/folders', { body: { name } });
    expect(again.status).toBe(400);
    const items = await auditItems(`action == "POST /folders" & target contains "${name}"`);
    expect(items.map((i) => i.status)).toEqual(['400', '200']);
    expect(items[1]).toMatchObject({ actor_email: alice.email, access_key: alice.accessKey, action: 'POST /folders', target: JSON.stringify({ name }) });
    expect(items[1].request_id).toMatch(/\w+-\w+/);
    const deleted = await alice.client.request('DELETE', `/folders/${name}`);
    expect(deleted.status).toBeLessThan(300);
    const deletes = await auditItems(`action == "DELETE /folders/{name}" & actor_email == "${alice.email}"`);
    expect(deletes[0]).toMatchObject({ target: JSON.stringify({ name }), status: String(deleted.status) });
    // A refused request names its caller too (the signature held), and a forged one does not.
    const refused = await alice.client.request('POST', '/config/set', { body: { key: 'x/y', value: 'z' } });
    expect(refused.status).toBe(403);
    expect((await auditItems(`action == "POST /config/set" & status == "403"`))[0]).toMatchObject({ actor_email: alice.email, access_key: alice.accessKey });
    const refusedDelete = await alice.client.request('DELETE', '/folders/not-hers-at-all');
    expect(refusedDelete.status).toBe(404);
    expect((await auditItems('action == "DELETE /folders/{name}" & status == "404"'))[0]).toMatchObject({ actor_email: alice.email, target: JSON.stringify({ name: 'not-hers-at-all' }) });
  });

  it('records logins and failed logins with the account tried, never the password', async () => {
    const wrong = `wrong-password-${Date.now()}`;
    const failed = await t.anonymous.request('POST', '/auth/authorize', { body: { type: 'keypair', domain: 'default', username: alice.email, password: wrong } });
    expect(failed.status).toBe(401);
    const ok = await t.anonymous.request('POST', '/auth/authorize', { body: { type: 'keypair', domain: 'default', username: t.adminCreds.email, password: ADMIN_PASSWORD } });
    expect(ok.status).toBe(200);
    const logins = await auditItems('action == "POST /auth/authorize"');
    expect(logins[0]).toMatchObject({ actor_email: t.adminCreds.email, status: '200', access_key: null });
    expect(logins[1]).toMatchObject({ actor_email: alice.email, status: '401', access_key: null });
    const everything = JSON.stringify(await auditItems(''));
    expect(everything).not.toContain(wrong);
    expect(everything).not.toContain(ADMIN_PASSWORD);
    expect(everything).not.toContain(t.adminCreds.secretKey);
  });

  it('records GraphQL mutations by name, with refusals, and not queries', async () => {
    const policy = `audited-policy-${Date.now().toString(36)}`;
    const answer = await t.admin.call('POST', '/admin/gql', {
      body: {
        query: 'mutation($name: String!) { made: create_keypair_resource_policy(name: $name, props: {idle_timeout: 60}) { ok msg } }',
        variables: { name: policy },
      },
    });
    expect(answer.data.made.ok).toBe(true);
    const denied = await alice.client.call('POST', '/admin/gql', {
      body: { query: `mutation { delete_keypair_resource_policy(name: "${policy}") { ok msg } }` },
    });
    expect(denied.errors[0].extensions.code).toBe('insufficient-privilege');
    await t.admin.call('POST', '/admin/gql', { body: { query: '{ keypair_resource_policies { name } }' } });
    const created = await auditItems(`action == "create_keypair_resource_policy" & target contains "${policy}"`);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ actor_email: t.adminCreds.email, access_key: t.adminCreds.accessKey, status: '200', target: JSON.stringify({ name: policy }) });
    const refusals = await auditItems(`action == "delete_keypair_resource_policy" & actor_email == "${alice.email}"`);
    expect(refusals[0]).toMatchObject({ status: '403', target: JSON.stringify({ name: policy }) });
    expect(await auditItems('action == "keypair_resource_policies" | action == "POST /admin/gql"')).toEqual([]);
  });

  it('pages newest first by default, takes the list filter and order, and refuses bad ones', async () => {
    const page = await auditLog(t.admin, '');
    const { items, total_count } = page.data.audit_log_list;
    expect(total_count).toBeGreaterThanOrEqual(items.length);
    const times = items.map((i: AuditItem) => Date.parse(i.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const oldest = await auditLog(t.admin, 'status == "200"', ', order: "+created_at"');
    const ascending = oldest.data.audit_log_list.items.map((i: AuditItem) => Date.parse(i.created_at));
    expect([...ascending].sort((a, b) => a - b)).toEqual(ascending);
    for (const filter of ['no_such_field == "x"', 'status ==', 'created_at > "not a date"']) {
      const bad = await auditLog(t.admin, filter);
      expect(bad.errors[0].extensions.code).toBe('invalid-api-params');
    }
    const tooMany = await t.admin.call('POST', '/admin/gql', { body: { query: '{ audit_log_list(limit: 101, offset: 0) { total_count } }' } });
    expect(tooMany.errors[0].extensions.code).toBe('invalid-api-params');
  });

  it('is for superadmins only', async () => {
    for (const client of [alice.client, domainAdmin.client]) {
      const answer = await auditLog(client, '');
      expect(answer.data.audit_log_list).toBeNull();
      expect(answer.errors[0].extensions.code).toBe('insufficient-privilege');
    }
  });

  it('prunes records past BERTH_AUDIT_RETENTION_DAYS', async () => {
    const old = new Date(Date.now() - (t.app.settings.auditRetentionDays + 1) * 86_400_000);
    await t.app.db.insertInto('audit_log').values({ created_at: old, action: 'POST /ancient', status: '200', actor_email: null, access_key: null, target: null }).execute();
    expect(await auditItems('action == "POST /ancient"')).toHaveLength(1);
    expect(await pruneAuditLog(t.app)).toBeGreaterThanOrEqual(1);
    expect(await auditItems('action == "POST /ancient"')).toHaveLength(0);
    expect((await auditItems('')).length).toBeGreaterThan(0);
  });
});
