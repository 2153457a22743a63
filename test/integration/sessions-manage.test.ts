/** Managing live sessions: rename, restart, interrupt, match, recursive destroy, callbacks, destroy rules. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';

let t: TestBerth;
let alice: TestUser;
beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
});
afterAll(() => t?.stop());

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

const run = (name: string, code: string) => alice.client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code } });

describe('managing a session', () => {
  it('renames a running session; the old name is free and a taken name is refused', async () => {
    await alice.client.call('POST', '/session', { body: { name: 'before-name', image: 'shell' } });
    await alice.client.call('POST', '/session', { body: { name: 'taken-name', image: 'shell' } });
    expect((await alice.client.request('POST', '/session/before-name/rename', { body: { name: 'taken-name' } })).status).toBe(400);
    expect((await alice.client.request('POST', '/session/before-name/rename', { body: { name: 'x' } })).status).toBe(400);
    expect(await alice.client.call('POST', '/session/before-name/rename', { body: { name: 'after-name' } })).toEqual({});
    expect((await alice.client.call('GET', '/session/after-name')).sessionName).toBe('after-name');
    expect((await alice.client.request('GET', '/session/before-name')).status).toBe(404);
    await alice.client.call('DELETE', '/session/after-name');
    await alice.client.call('DELETE', '/session/taken-name');
  });

  it('restarts a session: files stay, the interpreter starts fresh', async () => {
    await alice.client.call('POST', '/session', { body: { name: 'restart-me', image: 'python' } });
    await run('restart-me', 'open("kept.txt", "w").write("kept")\nvolatile = 1');
    expect(await alice.client.call('PATCH', '/session/restart-me')).toEqual({});
    const info = await alice.client.call('GET', '/session/restart-me');
    expect(info.status).toBe('RUNNING');
    expect(Object.keys(info.statusHistory)).toContain('RESTARTING');
    const after = await run('restart-me', 'print(open("kept.txt").read(), "volatile" in globals())');
    expect(after.result.console).toEqual([['stdout', 'kept False\n']]);
    await alice.client.call('DELETE', '/session/restart-me');
  });

  it('interrupts a long run over HTTP', async () => {
    await alice.client.call('POST', '/session', { body: { name: 'interrupt-me', image: 'python' } });
    const first = (await run('interrupt-me', 'import time\ntime.sleep(60)')).result;
    expect(first.status).toBe('continued');
    expect(await alice.client.call('POST', '/session/interrupt-me/interrupt')).toEqual({});
    const rest = (await alice.client.call('POST', '/session/interrupt-me', { body: { mode: 'continue', runId: first.runId, code: '' } })).result;
    expect(rest.status).toBe('finished');
    expect(rest.console.map((c: [string, string]) => c[1]).join('')).toContain('KeyboardInterrupt');
    await alice.client.call('DELETE', '/session/interrupt-me');
  });

  it('matches sessions by name or id prefix for completion', async () => {
    const created = await alice.client.call('POST', '/session', { body: { name: 'matchable-one', image: 'shell', enqueueOnly: true } });
    const byName = await alice.client.call('GET', '/session/_/match', { query: { id: 'matchable' } });
    expect(byName.matches).toContainEqual(expect.objectContaining({ id: created.sessionId, name: 'matchable-one' }));
    const byId = await alice.client.call('GET', '/session/_/match', { query: { id: created.sessionId.slice(0, 8) } });
    expect(byId.matches.map((m: { id: string }) => m.id)).toContain(created.sessionId);
    const stranger = await t.createUser();
    expect((await stranger.client.call('GET', '/session/_/match', { query: { id: 'matchable' } })).matches).toEqual([]);
    await waitFor(async () => (await alice.client.call('GET', `/session/${created.sessionId}`)).status === 'RUNNING');
    await alice.client.call('DELETE', `/session/${created.sessionId}`);
  });

  it('destroys dependents too with recursive=true and answers their stats', async () => {
    const parent = await alice.client.call('POST', '/session', { body: { name: 'parent-sess', image: 'shell' } });
    const child = await alice.client.call('POST', '/session', { body: { name: 'child-sess', image: 'shell', dependencies: [parent.sessionId], enqueueOnly: true } });
    const answer = await alice.client.call('DELETE', '/session/parent-sess', { query: { recursive: true } });
    expect(Array.isArray(answer.stats)).toBe(true);
    expect(answer.stats).toHaveLength(2);
    expect((await alice.client.call('GET', `/session/${child.sessionId}`)).status).toBe('CANCELLED');
    expect((await alice.client.call('GET', `/session/${parent.sessionId}`)).status).toBe('TERMINATED');
  });

  it('cancels a PENDING session straight away and refuses a second destroy with 404', async () => {
    const blocked = await alice.client.call('POST', '/session', { body: { name: 'never-starts', image: 'shell', enqueueOnly: true, dependencies: [] , starts_at: '1h', type: 'batch', startupCommand: 'true' } });
    expect((await alice.client.call('GET', `/session/${blocked.sessionId}`)).status).toBe('PENDING');
    await alice.client.call('DELETE', `/session/${blocked.sessionId}`);
    expect((await alice.client.call('GET', `/session/${blocked.sessionId}`)).status).toBe('CANCELLED');
    expect((await alice.client.request('DELETE', `/session/${blocked.sessionId}`)).status).toBe(404);
  });

  it('posts lifecycle callbacks to callback_url', async () => {
    const received: any[] = [];
    const hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;
    const created = await alice.client.call('POST', '/session', { body: { name: 'called-back', image: 'shell', type: 'batch', startupCommand: 'exit 0', callback_url: url } });
    await waitFor(async () => received.some((e) => e.event === 'success'));
    hook.close();
    const events = received.map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['enqueued', 'scheduled', 'preparing', 'started', 'terminating', 'terminated', 'success']));
    expect(received[0]).toMatchObject({ type: 'session_lifecycle', session_id: created.sessionId, when: expect.any(String) });
  });
});
