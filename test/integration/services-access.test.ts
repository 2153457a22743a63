/**
 * One access rule per model service (server/services/access.ts): for every kind of caller, the services GraphQL's
 * endpoint_list shows are exactly the ones endpoint(endpoint_id) and GET /services/:id let them read. Services
 * with no replicas: the rule is about rows, not running sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthClient } from '../../server/client/client';
import { startTestBerth, type TestBerth } from '../helpers/berth';
import { MODEL_DEFINITION, MODEL_SERVER_PY, uploadText } from '../helpers/model-folder';

let t: TestBerth;
const callers = new Map<string, BerthClient>();
/** Every service made here, by owner. */
const services = new Map<string, string>();

async function makeService(owner: string, client: BerthClient): Promise<void> {
  const folder = `${owner}-model`;
  await client.call('POST', '/folders', { body: { name: folder, usage_mode: 'model' } });
  await uploadText(client, folder, 'server.py', MODEL_SERVER_PY);
  await uploadText(client, folder, 'model-definition.yaml', MODEL_DEFINITION);
  const created = await client.call('POST', '/services', {
    body: {
      name: `svc-${owner}`, desired_session_count: 0, image: 'python', arch: 'x86_64', group: 'default', domain: 'default',
      cluster_size: 1, cluster_mode: 'single-node', open_to_public: false,
      config: { model: folder, model_mount_destination: '/home/work/model' },
    },
  });
  services.set(owner, created.endpoint_id);
}

beforeAll(async () => {
  t = await startTestBerth({}, { roles: ['manager', 'apps'] });
  await t.createDomain('elsewhere');
  const alice = await t.createUser();
  const bob = await t.createUser();
  const domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
  const stranger = await t.createUser({ domain: 'elsewhere' });
  const strangerAdmin = await t.createUser({ domain: 'elsewhere', role: 'admin', isAdmin: true });
  callers.set('owner alice', alice.client);
  callers.set('project-mate bob', bob.client);
  callers.set('domain admin', domainAdmin.client);
  callers.set('user of another domain', stranger.client);
  callers.set('admin of another domain', strangerAdmin.client);
  callers.set('superadmin', t.admin);
  await makeService('alice', alice.client);
  await makeService('bob', bob.client);
}, 120_000);
afterAll(() => t?.stop());

async function listed(client: BerthClient): Promise<string[]> {
  const answer = await client.call('POST', '/admin/gql', { body: { query: '{ endpoint_list(limit: 100) { items { endpoint_id } total_count } }' } });
  expect(answer.errors).toBeUndefined();
  const items: { endpoint_id: string }[] = answer.data.endpoint_list.items;
  expect(answer.data.endpoint_list.total_count).toBe(items.length);
  return items.map((i) => i.endpoint_id).sort();
}

async function readable(client: BerthClient): Promise<string[]> {
  const out: string[] = [];
  for (const id of services.values()) {
    const answer = await client.call('POST', '/admin/gql', { body: { query: 'query($id: UUID!) { endpoint(endpoint_id: $id) { endpoint_id } }', variables: { id } } });
    const viaGraphql = answer.data.endpoint !== null;
    const rest = await client.request('GET', `/services/${id}`);
    expect(rest.status === 200).toBe(viaGraphql);
    if (!viaGraphql) expect(rest.status).toBe(404);
    if (viaGraphql) out.push(id);
  }
  return out.sort();
}

const EXPECTED: Record<string, string[]> = {
  'owner alice': ['alice'],
  'project-mate bob': ['bob'],
  'domain admin': ['alice', 'bob'],
  'user of another domain': [],
  'admin of another domain': [],
  superadmin: ['alice', 'bob'],
};

describe('model services: what a caller lists is what they can read', () => {
  for (const [who, owners] of Object.entries(EXPECTED)) {
    it(`${who}`, async () => {
      const client = callers.get(who)!;
      const expected = owners.map((o) => services.get(o)!).sort();
      expect(await listed(client)).toEqual(expected);
      expect(await readable(client)).toEqual(expected);
    });
  }
});
