/** Signed WebSocket connections to the manager's stream endpoints, and a frame collector for tests. */
import WebSocket from 'ws';
import { signRequest } from '../../server/client/sign';
import { buildQuery } from '../../server/client/client';

export interface Opened {
  ws: WebSocket;
  frames: any[];
  /** Resolves with the first frame (already received or coming) that matches. */
  next(match: (frame: any) => boolean, timeoutMs?: number): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
}

export function connectStream(endpoint: string, creds: { accessKey: string; secretKey: string } | null, path: string, query: Record<string, string> = {}): Promise<Opened> {
  const url = new URL(endpoint);
  const uri = path + buildQuery(query);
  const headers = creds ? signRequest({ method: 'GET', uri, host: url.host, accessKey: creds.accessKey, secretKey: creds.secretKey }) : {};
  const ws = new WebSocket(`ws://${url.host}${uri}`, { headers });
  const frames: any[] = [];
  const waiters: { match: (f: any) => boolean; resolve: (f: any) => void }[] = [];
  ws.on('message', (data, isBinary) => {
    const frame = isBinary ? data : JSON.parse(data.toString());
    frames.push(frame);
    for (const w of [...waiters]) if (w.match(frame)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(frame);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  return new Promise((resolve, reject) => {
    ws.once('open', () =>
      resolve({
        ws,
        frames,
        closed,
        next(match, timeoutMs = 15_000) {
          const found = frames.find(match);
          if (found) return Promise.resolve(found);
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`no matching frame; got ${JSON.stringify(frames).slice(0, 500)}`)), timeoutMs);
            waiters.push({ match, resolve: (f) => { clearTimeout(timer); ok(f); } });
          });
        },
      }),
    );
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body })));
    });
    ws.once('error', (err) => reject(err));
  });
}

export const b64 = (text: string) => Buffer.from(text).toString('base64');
export const unb64 = (text: string) => Buffer.from(text, 'base64').toString();

/**
 * The terminal behaviour every backend shares: a session's pty stream runs typed input in a shell and its output
 * comes back (the shell does the arithmetic, so an echo of the input alone does not pass).
 */
export async function expectTerminalRuns(endpoint: string, creds: { accessKey: string; secretKey: string }, session: string): Promise<void> {
  const term = await connectStream(endpoint, creds, `/stream/session/${session}/pty`);
  const output = () => term.frames.filter((f) => f.type === 'out').map((f) => unb64(f.data)).join('');
  term.ws.send(JSON.stringify({ type: 'stdin', chars: b64('echo "sum=$((20+22))"\n') }));
  await term.next(() => output().includes('sum=42'));
  term.ws.close();
}

/**
 * The web terminal (ttyd) behind the app proxy at `base`, with the proxy's cookie: opens its WebSocket with the
 * `tty` protocol, types `echo ttyd-says-$((6*7))` and waits for the shell's answer. Answers the open socket.
 */
export async function expectTtydRuns(base: string, cookie: string): Promise<WebSocket> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}ws`, ['tty'], { headers: { Cookie: cookie } });
  let output = '';
  const answered = new Promise<void>((resolve) => {
    ws.on('message', (data: Buffer) => {
      if (data[0] === 0x30) output += data.subarray(1).toString();
      if (output.includes('ttyd-says-42')) resolve();
    });
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ AuthToken: '', columns: 80, rows: 24 }));
  ws.send(Buffer.from('0echo ttyd-says-$((6*7))\n'));
  await answered;
  return ws;
}
