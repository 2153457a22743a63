/**
 * The kernel channel to a container on a remote (tcp://) Docker engine: each operation is an exec, through the
 * Engine API and the engine's own TLS client certificates, of a few lines of Python in the container that connect
 * to the runner's Unix socket and pump bytes both ways (stdin → socket, socket → stdout). No port is published and
 * the session's network stays internal. The exec's stdout comes multiplexed (no TTY): its frames are undone here,
 * so the channel (../channel/connection) sees a plain byte stream.
 *
 * An exec costs ~50 ms in dockerd alone and the bridge's Python ~20 ms more, so each runner socket keeps one bridge
 * started ahead of need: it waits for its first bytes before it connects, and the operation that takes it only
 * writes; the next one is started in the background at once.
 */
import { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { DockerExecEndpoint } from '../channel/endpoint';

/**
 * argv: `now` or `later` (connect at the first bytes from stdin), then the runner's socket, or a host and port (an
 * app in the container). Once connected it writes `+` to stderr, so the opener knows the far end is there (a refused
 * connection is the traceback instead). Unbuffered both ways (os.read/os.write, a short write continued), half-close
 * passed on.
 */
export const BRIDGE = `
import os, socket, sys, threading
first = b''
if sys.argv[1] == 'later':
    first = os.read(0, 65536)
    if not first:
        sys.exit(0)
if len(sys.argv) == 3:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[2])
else:
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
os.write(2, b'+')
s.sendall(first)
def up():
    while True:
        data = os.read(0, 65536)
        if not data:
            s.shutdown(socket.SHUT_WR)
            return
        s.sendall(data)
threading.Thread(target=up, daemon=True).start()
while True:
    data = s.recv(65536)
    if not data:
        break
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]
`;

/** The engines this process drives, by their BERTH_DOCKER_HOSTS url (endpoints name their engine so). */
const engines = new Map<string, Docker>();

export function registerExecEngine(url: string, docker: Docker): void {
  engines.set(url, docker);
}

/** Bridges started ahead of need, one per runner socket (engine, container, socket). */
const ready = new Map<string, Promise<ExecStream>>();

export async function openExecChannel(endpoint: DockerExecEndpoint): Promise<Duplex> {
  const docker = engines.get(endpoint.engine);
  if (!docker) throw new Error(`the Docker engine ${endpoint.engine} is not one this manager drives`);
  const key = `${endpoint.engine} ${endpoint.container} ${endpoint.socket}`;
  const waiting = ready.get(key);
  ready.delete(key);
  const stream = waiting && (await waiting.catch(() => null));
  startAhead(docker, endpoint, key);
  if (stream?.unused()) return stream;
  stream?.destroy();
  return openBridge(docker, endpoint, [endpoint.socket]);
}

function startAhead(docker: Docker, endpoint: DockerExecEndpoint, key: string): void {
  if (ready.has(key)) return;
  const next = startBridge(docker, endpoint, 'later', [endpoint.socket]);
  ready.set(key, next);
  const forget = () => ready.get(key) === next && ready.delete(key);
  // A container that is gone takes its bridge with it: nothing is kept for it.
  next.then((s) => s.once('close', forget), forget);
}

/** Ends the bridges waiting for the engine's kernels (the manager stops; they would hold its connections open). */
export async function closeReadyBridges(engine: string): Promise<void> {
  for (const [key, waiting] of [...ready]) {
    if (!key.startsWith(`${engine} `)) continue;
    ready.delete(key);
    (await waiting.catch(() => null))?.destroy();
  }
}

/** A byte stream to `target` (a Unix socket path, or host and port) inside the container; resolves once connected. */
export async function openBridge(docker: Docker, where: Pick<DockerExecEndpoint, 'container' | 'user' | 'python'>, target: string[]): Promise<Duplex> {
  const stream = await startBridge(docker, where, 'now', target);
  await stream.connected;
  return stream;
}

async function startBridge(docker: Docker, where: Pick<DockerExecEndpoint, 'container' | 'user' | 'python'>, when: 'now' | 'later', target: string[]): Promise<ExecStream> {
  const exec = await docker.getContainer(where.container).exec({
    // -S: no site-packages scan, the bridge needs only the standard library.
    Cmd: [where.python, '-I', '-S', '-c', BRIDGE, when, ...target],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    User: where.user,
  });
  const raw = await exec.start({ hijack: true, stdin: true });
  const stream = new ExecStream(raw);
  // A bridge started ahead is handed over before it connects; its failure is then the stream's end.
  stream.connected.catch(() => undefined);
  return stream;
}

/** The exec's hijacked connection as a byte stream: writes go to its stdin, reads are its stdout frames' payloads. */
class ExecStream extends Duplex {
  private pending: Buffer = Buffer.alloc(0);
  private stderr = '';
  private written = false;
  private linked = false;
  private gone = false;
  private settle!: { resolve: () => void; reject: (err: Error) => void };
  /** Resolves when the bridge has connected (its `+` on stderr); rejects with its error when it could not. */
  readonly connected = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));

  constructor(private readonly raw: Duplex) {
    super({ allowHalfOpen: false });
    raw.on('data', (chunk: Buffer) => this.frames(chunk));
    raw.on('end', () => this.ended());
    raw.on('close', () => this.ended());
    raw.on('error', (err) => {
      this.settle.reject(err);
      this.destroy(err);
    });
  }

  private ended(): void {
    if (this.gone) return;
    this.gone = true;
    const lines = this.stderr.replace(/^\+/, '').trim().split('\n');
    this.settle.reject(new Error(`the exec bridge ended before it connected${lines[0] ? `: ${lines.at(-1)}` : ''}`));
    this.push(null);
    // One that never connected has nothing for a reader: gone for good (a bridge started ahead is forgotten so).
    if (!this.linked) this.destroy();
  }

  /** What a caller of a net.Socket may call (the http client and its keep-alive pool); the engine's socket owns these. */
  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  setTimeout(ms: number, callback?: () => void): this {
    if (callback && ms > 0) this.once('timeout', callback);
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  /** Frames: 1 byte stream (1 stdout), 3 zero bytes, a big-endian length, the payload. */
  private frames(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let more = true;
    while (this.pending.length >= 8) {
      const length = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + length) break;
      const payload = this.pending.subarray(8, 8 + length);
      if (this.pending[0] === 1 && !this.destroyed) more = this.push(payload) && more;
      else if (this.pending[0] === 2) this.bridgeSaid(payload.toString('utf8'));
      this.pending = this.pending.subarray(8 + length);
    }
    // Backpressure: the engine, and so the runner's writes, wait while the reader does.
    if (!more) this.raw.pause();
  }

  private bridgeSaid(text: string): void {
    if (this.stderr.length < 4096) this.stderr += text;
    if (this.stderr.startsWith('+')) {
      this.linked = true;
      this.settle.resolve();
    }
  }

  override _read(): void {
    this.raw.resume();
  }

  /** Not yet written to, and still open: a bridge started ahead that an operation may take. */
  unused(): boolean {
    return !this.written && !this.gone && !this.destroyed;
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.written = true;
    this.raw.write(chunk, callback);
  }

  override _final(callback: () => void): void {
    this.raw.end();
    callback();
  }

  override _destroy(err: Error | null, callback: (err: Error | null) => void): void {
    this.raw.destroy();
    callback(err);
  }
}
