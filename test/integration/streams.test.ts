/** Terminals and code execution over WebSocket (CONTRACT §8.3, §8.4): real sandboxes, signed upgrades. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { b64, connectStream, unb64 } from '../helpers/ws';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
const name = 'stream-sess';

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
  const created = await alice.client.call('POST', '/session', { body: { name, image: 'python', group: 'default' } });
  expect(created.status).toBe('RUNNING');
});
afterAll(() => t?.stop());

const output = (frames: any[]) => frames.filter((f) => f.type === 'out').map((f) => unb64(f.data)).join('');

describe('GET /stream/session/{name}/pty', () => {
  it('is a real terminal in the sandbox: typed input runs and its output comes back', async () => {
    const term = await connectStream(t.url, alice, `/stream/session/${name}/pty`);
    term.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo "sum=$((20+22))"; whoami; hostname\n') }));
    await term.next(() => output(term.frames).includes('sum=42'));
    await term.next(() => output(term.frames).includes('main1'));
    term.ws.close();
  });

  it('resizes the terminal', async () => {
    const term = await connectStream(t.url, alice, `/stream/session/${name}/pty`);
    term.ws.send(JSON.stringify({ type: 'resize', rows: 33, cols: 101 }));
    term.ws.send(JSON.stringify({ type: 'ping' }));
    term.ws.send(JSON.stringify({ type: 'stdin', chars: b64('stty size\n') }));
    await term.next(() => output(term.frames).includes('33 101'));
    term.ws.close();
  });

  it('gives several terminals their own shells', async () => {
    const [a, b] = await Promise.all([connectStream(t.url, alice, `/stream/session/${name}/pty`), connectStream(t.url, alice, `/stream/session/${name}/pty`)]);
    a.ws.send(JSON.stringify({ type: 'stdin', chars: b64('export ONLY_A=yes; echo A=$$\n') }));
    await a.next(() => output(a.frames).includes('A='));
    b.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo "B sees [${ONLY_A}]"\n') }));
    await b.next(() => output(b.frames).includes('B sees []'));
    a.ws.close();
    b.ws.close();
  });

  it('restarts the kernel on {"type":"restart"}: files stay, the shell is new, the same socket goes on', async () => {
    await alice.client.call('POST', '/session', { body: { name: 'pty-restart', image: 'shell' } });
    const term = await connectStream(t.url, alice, '/stream/session/pty-restart/pty');
    // Waits for the shell's answer, not the echo of the typed line (which comes before the line has run).
    term.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo kept > kept.txt; export VOLATILE=1; echo "writ""ten"\n') }));
    await term.next(() => output(term.frames).includes('written\r\n'));
    term.ws.send(JSON.stringify({ type: 'restart' }));
    const deadline = Date.now() + 20_000;
    while (!Object.keys((await alice.client.call('GET', '/session/pty-restart')).statusHistory).includes('RESTARTING') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Typed until the new shell answers (input sent while the kernel restarts may be lost).
    let answered = false;
    while (!answered && Date.now() < deadline) {
      term.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo "after[$VOLATILE] $(cat kept.txt)"\n') }));
      answered = await term.next(() => output(term.frames).includes('after[] kept'), 1_000).then(() => true, () => false);
    }
    const after = await alice.client.call('GET', '/session/pty-restart');
    expect(answered, `terminal said: ${output(term.frames).slice(-400)}; session ${after.status} ${JSON.stringify(after.statusData ?? after.status_data ?? {})}`).toBe(true);
    expect(after.status).toBe('RUNNING');
    term.ws.close();
    await alice.client.call('DELETE', '/session/pty-restart');
  });

  it.each([
    ['not JSON', 'hello'],
    ['an unknown type', JSON.stringify({ type: 'dance' })],
    ['stdin that is not base64', JSON.stringify({ type: 'stdin', chars: '%%%' })],
    ['a resize out of range', JSON.stringify({ type: 'resize', rows: -1, cols: 80 })],
  ])('closes the socket on %s and the session keeps running', async (_, frame) => {
    const term = await connectStream(t.url, alice, `/stream/session/${name}/pty`);
    term.ws.send(frame);
    expect((await term.closed).code).toBe(1003);
    expect((await alice.client.call('GET', `/session/${name}`)).status).toBe('RUNNING');
    const again = await connectStream(t.url, alice, `/stream/session/${name}/pty`);
    again.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo still-here\n') }));
    await again.next(() => output(again.frames).includes('still-here'));
    again.ws.close();
  });

  it('refuses another user with 404, an unsigned upgrade with 401, and plain HTTP with 426', async () => {
    await expect(connectStream(t.url, bob, `/stream/session/${name}/pty`)).rejects.toMatchObject({ status: 404 });
    await expect(connectStream(t.url, null, `/stream/session/${name}/pty`)).rejects.toMatchObject({ status: 401 });
    const forged = { accessKey: alice.accessKey, secretKey: 'x'.repeat(40) };
    await expect(connectStream(t.url, forged, `/stream/session/${name}/pty`)).rejects.toMatchObject({ status: 401 });
    expect((await alice.client.request('GET', `/stream/session/${name}/pty`)).status).toBe(426);
  });
});

describe('GET /stream/session/{name}/execute', () => {
  it('runs one query, streams its output and closes with 1000 after finished', async () => {
    const run = await connectStream(t.url, alice, `/stream/session/${name}/execute`);
    run.ws.send(JSON.stringify({ mode: 'query', code: 'import time\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(0.3)' }));
    const last = await run.next((f) => f.status === 'finished');
    expect(last.exitCode).toBe(0);
    expect((await run.closed).code).toBe(1000);
    const printed = run.frames.flatMap((f) => f.console).map((c: [string, string]) => c[1]).join('');
    expect(printed).toBe('0\n1\n2\n');
    expect(run.frames.filter((f) => f.status === 'continued').length).toBeGreaterThan(0);
  });

  it('takes input as the next frame while waiting for it', async () => {
    const run = await connectStream(t.url, alice, `/stream/session/${name}/execute`);
    run.ws.send(JSON.stringify({ mode: 'query', code: 'who = input("who? ")\nprint("hello", who)' }));
    expect(await run.next((f) => f.status === 'waiting-input')).toMatchObject({ options: { is_password: false } });
    run.ws.send('websocket');
    const done = await run.next((f) => f.status === 'finished');
    expect(done.console).toContainEqual(['stdout', 'hello websocket\n']);
  });

  it('answers a malformed first frame with an error frame and a close', async () => {
    const run = await connectStream(t.url, alice, `/stream/session/${name}/execute`);
    run.ws.send('{"mode":"dance"}');
    expect(await run.next((f) => f.status === 'error')).toHaveProperty('msg');
    expect((await run.closed).code).toBe(1003);
  });

  it('interrupts the run when the client leaves first', async () => {
    const run = await connectStream(t.url, alice, `/stream/session/${name}/execute`);
    run.ws.send(JSON.stringify({ mode: 'query', code: 'import time\ntime.sleep(30)' }));
    await new Promise((r) => setTimeout(r, 300));
    run.ws.close();
    // The next run gets the interpreter as soon as the interrupted one gives it up (long before 30 s).
    let { result } = await alice.client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code: 'print("free")' } });
    const printed = [...result.console];
    for (let i = 0; i < 5 && result.status === 'continued'; i++) {
      ({ result } = await alice.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: result.runId, code: '' } }));
      printed.push(...result.console);
    }
    expect(result.status).toBe('finished');
    expect(printed).toEqual([['stdout', 'free\n']]);
  });
});

describe('the sandbox user', () => {
  it('is named work in the terminal, with /home/work as its home', async () => {
    const term = await connectStream(t.url, alice, `/stream/session/${name}/pty`);
    term.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo "me=$(whoami) home=$HOME"\n') }));
    await term.next(() => output(term.frames).includes('me=work home=/home/work'));
    term.ws.close();
  });
});
