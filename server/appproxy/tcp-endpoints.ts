/**
 * TCP apps through the app proxy (CONTRACT §11.2, `add?protocol=tcp`): one listener per route on the proxy's own
 * address, whose connections are piped raw to the app (sshd). The port is only a way in: sshd still wants the
 * session's key. A listener admits only the addresses that asked for it (the caller of `add`, or its
 * `allowed_client_ips`), checks on every connection that the route still exists (the session may have ended), and
 * goes away with its route.
 */
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { AppConnector } from '../agents/agent';
import type { RouteCache } from './route-cache';

const SWEEP_MS = 30_000;

interface Endpoint {
  server: net.Server;
  port: number;
  clients: Set<string>;
  sockets: Set<net.Socket>;
}

const normalise = (ip: string) => ip.replace(/^::ffff:/, '');

export class TcpEndpoints {
  private readonly byRoute = new Map<string, Endpoint>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly routes: RouteCache,
    private readonly bindHost: string,
    private readonly log: Logger,
    /** How to reach a host out of direct reach (a container on a remote Docker engine); null: connect directly. */
    private readonly tunnelFor: (host: string) => AppConnector | null = () => null,
  ) {
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** The port forwarding to the route's app, opened if needed, admitting `clients` from now on. */
  async open(routeId: string, clients: string[]): Promise<number> {
    let endpoint = this.byRoute.get(routeId);
    if (!endpoint) {
      const server = net.createServer((socket) => this.accept(routeId, socket));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, this.bindHost, () => resolve());
      });
      endpoint = { server, port: (server.address() as net.AddressInfo).port, clients: new Set(), sockets: new Set() };
      this.byRoute.set(routeId, endpoint);
    }
    for (const ip of clients) endpoint.clients.add(normalise(ip));
    return endpoint.port;
  }

  private accept(routeId: string, client: net.Socket): void {
    const endpoint = this.byRoute.get(routeId);
    if (!endpoint || !endpoint.clients.has(normalise(client.remoteAddress ?? ''))) {
      client.destroy();
      return;
    }
    client.pause();
    endpoint.sockets.add(client);
    client.on('close', () => endpoint.sockets.delete(client));
    client.on('error', () => client.destroy());
    this.routes.get(routeId).then(
      (route) => {
        if (!route) {
          client.destroy();
          this.close(routeId);
          return;
        }
        const tunnel = this.tunnelFor(route.host);
        if (!tunnel) {
          const upstream = net.connect(route.host_port, route.host);
          upstream.setNoDelay(true);
          this.pipe(client, upstream);
          return;
        }
        tunnel(route.host_port).then(
          (upstream) => (client.destroyed ? upstream.destroy() : this.pipe(client, upstream)),
          () => client.destroy(),
        );
      },
      (err: unknown) => {
        this.log.warn({ err }, 'app proxy: TCP route lookup failed');
        client.destroy();
      },
    );
  }

  private pipe(client: net.Socket, upstream: Duplex): void {
    client.setNoDelay(true);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }

  private close(routeId: string): void {
    const endpoint = this.byRoute.get(routeId);
    if (!endpoint) return;
    this.byRoute.delete(routeId);
    endpoint.server.close();
    for (const socket of endpoint.sockets) socket.destroy();
  }

  /** Listeners of routes that are gone (the app stopped, the session ended). */
  private async sweep(): Promise<void> {
    for (const routeId of [...this.byRoute.keys()]) {
      if (!(await this.routes.get(routeId).catch(() => undefined))) this.close(routeId);
    }
  }

  closeAll(): void {
    clearInterval(this.sweeper);
    for (const routeId of [...this.byRoute.keys()]) this.close(routeId);
  }
}
