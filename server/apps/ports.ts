/** Host ports for in-session apps and model servers: a free port from BERTH_APP_PORT_RANGE that no app or service route holds and nothing listens on. */
import net from 'node:net';
import type { App } from '../app';
import type { AppConnector } from '../agents/agent';
import { Problem } from '../http/problem';

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function allocatePort(app: App): Promise<number> {
  const [low, high] = app.settings.appPortRange;
  // Model-service routes keep their port even if their app route goes (shutdown-service in the session).
  const [apps, services] = await Promise.all([
    app.db.selectFrom('app_routes').select('host_port').execute(),
    app.db.selectFrom('routings').select('host_port').where('host_port', 'is not', null).execute(),
  ]);
  const taken = new Set([...apps.map((r) => r.host_port), ...services.map((r) => r.host_port!)]);
  const span = high - low + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = low + ((start + i) % span);
    if (!taken.has(port) && (await isFree(port))) return port;
  }
  throw new Problem('service-unavailable', 'No free port is left for in-session apps.');
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** One attempt: whether something accepts connections on the port now (through `tunnel` if given). */
export function acceptsConnections(host: string, port: number, tunnel: AppConnector | null = null): Promise<boolean> {
  return tunnel ? tunnel(port).then((s) => (s.destroy(), true), () => false) : connects(host, port);
}

/**
 * Resolves once something accepts connections on the port (the app is up), or rejects after the timeout; `tunnel`
 * opens the connection when the host is out of direct reach (../apps/app-hosts appTunnel). At least one attempt
 * is made, however short the timeout.
 */
export async function waitForPort(host: string, port: number, timeoutMs: number, alive: () => boolean, tunnel: AppConnector | null = null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error('the app exited before it listened');
    if (await acceptsConnections(host, port, tunnel)) return;
    if (Date.now() >= deadline) throw new Error(`the app did not listen on port ${port} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
