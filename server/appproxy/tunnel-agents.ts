/**
 * Keep-alive http.Agents for app hosts the proxy cannot reach directly (a container on a remote Docker engine,
 * ../apps/app-hosts appTunnel): their connections are opened through the kernel's backend instead of by TCP. One
 * agent per such host while it is tunneled; every other host gets the shared direct agent, so the usual path costs
 * one lookup over the backends and nothing else.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { App } from '../app';
import { appTunnel } from '../apps/app-hosts';

class TunnelAgent extends http.Agent {
  constructor(private readonly tunnel: (port: number) => Promise<Duplex>) {
    super({ keepAlive: true, maxSockets: 64 });
  }

  override createConnection(options: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): undefined {
    this.tunnel(Number(options.port)).then(
      (stream) => callback?.(null, stream),
      (err: Error) => callback?.(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

export class TunnelAgents {
  private readonly agents = new Map<string, TunnelAgent>();

  constructor(private readonly app: App) {}

  /** The agent for `host`: a tunneling one while a backend tunnels to it, else `direct`. */
  for(host: string, direct: http.Agent): http.Agent {
    const tunnel = appTunnel(this.app, host);
    const known = this.agents.get(host);
    if (!tunnel) {
      if (known) {
        known.destroy();
        this.agents.delete(host);
      }
      return direct;
    }
    if (known) return known;
    const agent = new TunnelAgent(tunnel);
    this.agents.set(host, agent);
    return agent;
  }

  closeAll(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
