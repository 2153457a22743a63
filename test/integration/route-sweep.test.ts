/**
 * Every route in the table, driven with bad credentials and bad input: the rules of the request path hold for
 * all of them and none answers 5xx. New routes are covered the moment they are declared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { allRoutes } from '../../server/api';
import { paths } from '../../server/http/router';
import type { RouteDef } from '../../server/http/route';
import { BerthClient } from '../../server/client/client';
import { openEventStream } from '../helpers/sse';

let t: TestBerth;
let user: TestUser;
let domainAdmin: TestUser;

beforeAll(async () => {
  t = await startTestBerth();
  user = await t.createUser();
  domainAdmin = await t.createUser({ role: 'admin', isAdmin: true });
});
afterAll(() => t?.stop());

/** Fills path parameters with a value that names nothing. */
const concrete = (path: string) => path.replace(/:([A-Za-z_]+)/g, 'no-such-$1');
const routes = allRoutes().flatMap((route) => paths(route).map((path) => ({ route, path: concrete(path) })));
const signedRoutes = routes.filter(({ route }) => route.privilege !== 'none');
const label = ({ route, path }: { route: RouteDef; path: string }) => `${route.method} ${path}`;
const withBody = (method: string) => !['GET', 'HEAD', 'DELETE'].includes(method);

describe.each(signedRoutes.map((r) => [label(r), r] as const))('%s', (_, { route, path }) => {
  it('refuses a request without Authorization with 401', async () => {
    const res = await t.anonymous.request(route.method, path);
    expect(res.status).toBe(401);
  });

  it('refuses a wrong secret with 401', async () => {
    const forged = new BerthClient({ endpoint: t.url, accessKey: t.adminCreds.accessKey, secretKey: 'f'.repeat(40) });
    expect((await forged.request(route.method, path)).status).toBe(401);
  });

  it('refuses a date 20 minutes off with 400', async () => {
    const late = await t.admin.request(route.method, path, { date: new Date(Date.now() - 20 * 60_000) });
    const early = await t.admin.request(route.method, path, { date: new Date(Date.now() + 20 * 60_000) });
    expect([late.status, early.status]).toEqual([400, 400]);
  });

  if (route.privilege === 'admin' || route.privilege === 'superadmin') {
    it('refuses a plain user with 403 insufficient-privilege', async () => {
      const res = await user.client.request(route.method, path);
      expect(res.status).toBe(403);
      expect(res.json().type).toContain('insufficient-privilege');
    });
  }
  if (route.privilege === 'superadmin') {
    it('refuses a domain admin with 403', async () => {
      expect((await domainAdmin.client.request(route.method, path)).status).toBe(403);
    });
  }

  it('answers empty input below 500', async () => {
    if (route.stream === 'sse') {
      // A stream stays open: read its status line and hang up.
      const stream = await openEventStream(t.url, t.adminCreds, path);
      stream.close();
      expect(stream.status).toBeLessThan(500);
      return;
    }
    const res = await t.admin.request(route.method, path, withBody(route.method) ? { body: {} } : {});
    expect(res.status).toBeLessThan(500);
  });

  if (withBody(route.method)) {
    it('answers a non-JSON body below 500', async () => {
      const res = await t.admin.request(route.method, path, { rawBody: '{"broken' });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    });

    it('answers mistyped fields below 500', async () => {
      const junk = { key: 5, value: [], prefix: 'maybe', status: 7, echo: {}, group: 12, name: null, enabled: 'x', op: 3, args: 4 };
      const res = await t.admin.request(route.method, path, { body: junk });
      expect(res.status).toBeLessThan(500);
    });
  }
});

describe('every route', () => {
  it('is unique per method and path', () => {
    const seen = new Set<string>();
    for (const r of routes) {
      const key = label(r);
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });

  it('answers an oversized body with 413 and keeps serving', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    for (const { route, path } of routes.filter((r) => withBody(r.route.method) && !r.route.bodyLimit)) {
      const res = await t.admin.request(route.method, path, { rawBody: big });
      expect(res.status, `${route.method} ${path}`).toBe(413);
    }
    expect((await t.admin.request('GET', '/v2')).status).toBe(200);
  });
});
