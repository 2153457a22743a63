/**
 * The dashboard in its worker thread, as `npm start` runs it (server/web/thread.ts): it listens, renders, signs
 * people in and relays their signed calls to the manager of the main thread; /readyz sees its listener; a stop
 * drains it and ends the thread; Next's process-wide patches stay in the dashboard's thread; a dashboard that
 * cannot start fails Berth's start with its reason.
 *
 * Needs the built dashboard and dist/ (`npm run build`); runs in the vitest project `e2e` (BERTH_E2E=1).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebThread } from '../../server/web/thread';
import { sessionCookie, startDashboard, type Dashboard } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-thread-password-123';

let dashboard: Dashboard;
let webUrl: string;
let stopped = false;

beforeAll(async () => {
  dashboard = await startDashboard('thread', ADMIN_PASSWORD, {}, { webThread: true });
  ({ webUrl } = dashboard);
});

afterAll(async () => {
  if (!stopped) await dashboard.stop();
});

describe('the dashboard in its worker thread', () => {
  it('serves the login page', async () => {
    const page = await fetch(`${webUrl}/login`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('Sign in');
  });

  it('signs a person in and relays their signed calls to the manager', async () => {
    const cookie = await sessionCookie(webUrl, dashboard.berth.bootstrap.credentials!.email, ADMIN_PASSWORD);
    const relayed = await fetch(`${webUrl}/api/manager/v2`, { headers: { Cookie: cookie } });
    expect(relayed.status).toBe(200);
    expect(await relayed.json()).toMatchObject({ version: expect.stringMatching(/^v\d+\./) });
    const anonymous = await fetch(`${webUrl}/api/manager/v2`);
    expect(anonymous.status).toBe(401);
  });

  it("relays a call's body and the manager's answer through the main thread's client", async () => {
    const cookie = await sessionCookie(webUrl, dashboard.berth.bootstrap.credentials!.email, ADMIN_PASSWORD);
    const query = `{ user(email: ${JSON.stringify(dashboard.berth.bootstrap.credentials!.email)}) { email } }`;
    const relayed = await fetch(`${webUrl}/api/manager/admin/gql`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: webUrl, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    expect(relayed.status).toBe(200);
    expect(await relayed.json()).toEqual({ data: { user: { email: dashboard.berth.bootstrap.credentials!.email } } });
  });

  it('is a listener /readyz checks', async () => {
    const ready = await fetch(`${dashboard.berth.managerUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks['listener:web']).toEqual({ ok: true, detail: 'listening' });
  });

  it("keeps Next's process-wide patches in its own thread", async () => {
    expect((await fetch(`${webUrl}/login`)).status).toBe(200);
    // Next replaces the setImmediate of the thread that loads it with a wrapper of its own (patchedSetImmediate).
    expect(setImmediate.name).toBe('setImmediate');
  });

  it('stops listening when Berth stops', async () => {
    stopped = true;
    await dashboard.stop();
    await expect(fetch(`${webUrl}/api/healthz`)).rejects.toThrow();
  });
});

describe('a dashboard thread that cannot start', () => {
  it("fails with the thread's reason", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'berth-no-build-'));
    try {
      const started = startWebThread({
        managerUrl: 'http://127.0.0.1:9',
        projectDir: empty,
        dataDir: empty,
        host: '127.0.0.1',
        port: 0,
        logLevel: 'silent',
        warmUp: false,
        idleCollectionMs: 0,
        log: { error: () => {} },
        onCrash: () => {
          throw new Error('a thread that never started cannot crash');
        },
      });
      await expect(started).rejects.toThrow(/web-thread\.mjs|did not start|ended/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
