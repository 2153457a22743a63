/**
 * The kernel channel to a container on a remote (tcp://) Docker engine: each operation is an exec, through the
 * Engine API and the engine's own TLS client certificates, of a few lines of Python in the container that connect
 * to the runner's Unix socket and pump bytes both ways (stdin → socket, socket → stdout). No port is published and
 * the session's network stays internal. The exec's stdout comes multiplexed (no TTY): its frames are undone here,
 * so the channel (../channel/connection) sees a plain byte stream.
 */
import { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { DockerExecEndpoint } from '../channel/endpoint';

/** argv[1]: the runner's socket. Unbuffered both ways (os.read/os.write), half-close passed on. */
export const BRIDGE = `
import os, socket, sys, threading
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
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
    os.write(1, data)
`;

/** The engines this process drives, by their BERTH_DOCKER_HOSTS url (endpoints name their engine so). */
const engines = new Map<string, Docker>();

export function registerExecEngine(url: string, docker: Docker): void {
  engines.set(url, docker);
}

export async function openExecChannel(endpoint: DockerExecEndpoint): Promise<Duplex> {
  const docker = engines.get(endpoint.engine);
  if (!docker) throw new Error(`the Docker engine ${endpoint.engine} is not one this manager drives`);
  const exec = await docker.getContainer(endpoint.container).exec({
    Cmd: [endpoint.python, '-I', '-c', BRIDGE, endpoint.socket],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: false,
    Tty: false,
    User: endpoint.user,
  });
  const raw = await exec.start({ hijack: true, stdin: true });
  return new ExecStream(raw);
}

/** The exec's hijacked connection as a byte stream: writes go to its stdin, reads are its stdout frames' payloads. */
class ExecStream extends Duplex {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly raw: Duplex) {
    super({ allowHalfOpen: false });
    raw.on('data', (chunk: Buffer) => this.frames(chunk));
    raw.on('end', () => this.push(null));
    raw.on('close', () => this.push(null));
    raw.on('error', (err) => this.destroy(err));
  }

  /** Frames: 1 byte stream (1 stdout), 3 zero bytes, a big-endian length, the payload. */
  private frames(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let more = true;
    while (this.pending.length >= 8) {
      const length = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + length) break;
      if (this.pending[0] === 1 && !this.destroyed) more = this.push(this.pending.subarray(8, 8 + length)) && more;
      this.pending = this.pending.subarray(8 + length);
    }
    // Backpressure: the engine, and so the runner's writes, wait while the reader does.
    if (!more) this.raw.pause();
  }

  override _read(): void {
    this.raw.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
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
