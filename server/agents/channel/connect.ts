/**
 * Opens one operation on a kernel runner, over a Unix socket, over TLS, or over a transport a backend registered
 * for its own endpoint kind (the docker backend's `docker-exec`: channel/ imports no backend). For TLS the peer must
 * present the kernel's own certificate (pinned by its SHA-256 fingerprint: no certificate authority is involved),
 * and the first line sent is the kernel's secret, which the node-side launcher checks before it lets anything through.
 */
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { RunnerConnection, type RunnerEvent } from './connection';
import type { KernelEndpoint } from './endpoint';

type RegisteredKind = Exclude<KernelEndpoint['kind'], 'unix' | 'tls'>;
/** Opens a byte stream to the runner of `endpoint`; resolves once bytes can flow. */
export type RunnerTransport<K extends RegisteredKind = RegisteredKind> = (endpoint: Extract<KernelEndpoint, { kind: K }>) => Promise<Duplex>;

const transports = new Map<string, RunnerTransport>();

/** A backend's transport for its endpoint kind, registered when the backend starts. */
export function registerTransport<K extends RegisteredKind>(kind: K, transport: RunnerTransport<K>): void {
  transports.set(kind, transport as unknown as RunnerTransport);
}

/** TLS 1.3 session tickets per kernel endpoint: a resumed handshake skips the certificate exchange. */
const sessions = new Map<string, Buffer>();

function open(endpoint: Extract<KernelEndpoint, { kind: 'unix' | 'tls' }>): { socket: net.Socket; ready: string } {
  if (endpoint.kind === 'unix') return { socket: net.connect(endpoint.path), ready: 'connect' };
  const key = `${endpoint.host}:${endpoint.port}:${endpoint.fingerprint256}`;
  // The certificate is checked below against the pinned fingerprint, not against a CA or a host name.
  const socket = tls.connect({ host: endpoint.host, port: endpoint.port, rejectUnauthorized: false, minVersion: 'TLSv1.3', session: sessions.get(key) });
  socket.on('session', (ticket: Buffer) => {
    if (sessions.size > 10_000) sessions.clear();
    sessions.set(key, ticket);
  });
  return { socket, ready: 'secureConnect' };
}

export function connectRunner(endpoint: KernelEndpoint, request: object, timeoutMs = 5_000): Promise<RunnerConnection> {
  if (endpoint.kind !== 'unix' && endpoint.kind !== 'tls') return connectRegistered(endpoint, request, timeoutMs);
  return new Promise((resolve, reject) => {
    const { socket, ready } = open(endpoint);
    socket.setNoDelay(true);
    const timer = setTimeout(() => fail(new Error('timed out connecting to the kernel runner')), timeoutMs);
    function fail(err: Error) {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    }
    socket.once('error', fail);
    socket.once(ready, () => {
      if (endpoint.kind === 'tls') {
        // A resumed session carries no certificate, but only the server that issued the ticket after presenting the
        // pinned certificate can resume it.
        const secure = socket as tls.TLSSocket;
        if (!secure.isSessionReused() && secure.getPeerCertificate().fingerprint256 !== endpoint.fingerprint256) {
          return fail(new Error('the kernel presented a certificate that is not its own'));
        }
      }
      clearTimeout(timer);
      socket.off('error', fail);
      const connection = new RunnerConnection(socket);
      if (endpoint.kind === 'tls') connection.send({ auth: endpoint.secret });
      connection.send(request);
      resolve(connection);
    });
  });
}

async function connectRegistered(endpoint: Extract<KernelEndpoint, { kind: RegisteredKind }>, request: object, timeoutMs: number): Promise<RunnerConnection> {
  const transport = transports.get(endpoint.kind);
  if (!transport) throw new Error(`no transport for ${endpoint.kind} kernel endpoints in this process`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out connecting to the kernel runner')), timeoutMs);
  });
  const opening = transport(endpoint);
  try {
    const stream = await Promise.race([opening, timeout]);
    const connection = new RunnerConnection(stream);
    connection.send(request);
    return connection;
  } catch (err) {
    void opening.then((s) => s.destroy(), () => undefined);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** A request with a single answer event. */
export async function askRunner(endpoint: KernelEndpoint, request: object, answer: string, timeoutMs = 10_000): Promise<RunnerEvent> {
  const connection = await connectRunner(endpoint, request);
  try {
    const event = await connection.waitFor((e) => e.t === answer || e.t === 'error', timeoutMs);
    if (event.t === 'error') throw new Error(event.msg ?? 'kernel runner error');
    return event;
  } finally {
    connection.close();
  }
}
