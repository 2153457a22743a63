/**
 * The dashboard's WebSocket relay in a real browser: a signed-in page opens a terminal through /api/stream/…
 * without ever holding a key; a page of another origin (the app proxy's) cannot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import NodeWebSocket from 'ws';
import type { Berth } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { launchBrowser, type TestBrowser } from '../helpers/browser';
import { signIn, startDashboard, type Dashboard } from '../helpers/dashboard';

const ADMIN_PASSWORD = 'e2e-relay-password-123';
let dashboard: Dashboard;
let berth: Berth;
let browser: TestBrowser;

beforeAll(async () => {
  dashboard = await startDashboard('relay', ADMIN_PASSWORD);
  berth = dashboard.berth;
  const creds = berth.bootstrap.credentials!;
  const admin = new BerthClient({ endpoint: berth.managerUrl, accessKey: creds.accessKey, secretKey: creds.secretKey });
  await admin.call('POST', '/session', { body: { name: 'relay-term', image: 'shell' } });
  admin.close();
  browser = await launchBrowser();
  const page = browser.page;
  await signIn(page, berth.webUrl!, creds.email, ADMIN_PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

describe('the dashboard stream relay', () => {
  it('gives a signed-in page a terminal over /api/stream, with no key in the page', async () => {
    const output = await browser.page.evaluate(async () => {
      const ws = new WebSocket(`ws://${location.host}/api/stream/session/relay-term/pty`);
      let text = '';
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no echo; saw ${text}`)), 15_000);
        ws.onopen = () => ws.send(JSON.stringify({ type: 'stdin', chars: btoa('echo relay-$((40+2))\n') }));
        ws.onmessage = (event) => {
          const frame = JSON.parse(event.data);
          if (frame.type === 'out') text += atob(frame.data);
          if (text.includes('relay-42')) {
            clearTimeout(timer);
            ws.close();
            resolve(text);
          }
        };
        ws.onerror = () => reject(new Error('socket error'));
      });
    });
    expect(output).toContain('relay-42');
    const html = await browser.page.content();
    expect(html).not.toContain(berth.bootstrap.credentials!.secretKey);
  });

  it('refuses GraphQL documents that select keys, so a script in the page cannot read them', async () => {
    const statuses = await browser.page.evaluate(async () => {
      const ask = (query: string) => fetch('/api/manager/admin/gql', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query }) }).then((r) => r.status);
      return [await ask('{ keypairs { secret_key } }'), await ask('{ user { main_access_key } }'), await ask('{ user { email } }')];
    });
    expect(statuses).toEqual([403, 403, 200]);
  });

  it('refuses a page of another origin, even with the user\'s cookies', async () => {
    await browser.page.goto(`${berth.appsUrl}/health`);
    const opened = await browser.page.evaluate(async (webUrl) => {
      const ws = new WebSocket(`${webUrl.replace('http', 'ws')}/api/stream/session/relay-term/pty`);
      return new Promise<boolean>((resolve) => {
        ws.onopen = () => resolve(true);
        ws.onerror = () => resolve(false);
        ws.onclose = () => resolve(false);
      });
    }, berth.webUrl!);
    expect(opened).toBe(false);
  });

  it('refuses a connection without a dashboard session', async () => {
    const status = await new Promise<number>((resolve) => {
      const ws = new NodeWebSocket(`${berth.webUrl!.replace('http', 'ws')}/api/stream/session/relay-term/pty`, { headers: { Origin: berth.webUrl! } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    expect(status).toBe(401);
  });
});
