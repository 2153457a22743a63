/**
 * The addresses the app proxy may forward to: this machine, the address of a registered agent that is alive
 * (a cluster node), and a live container's address its backend vouches for. A stored route is only ever written
 * with its kernel's address, but the proxy checks anyway, so no route can make it reach another host.
 */
import type { App } from '../app';
import type { AppConnector } from '../agents/agent';

export const THIS_MACHINE = '127.0.0.1';

/** How to reach an app on `host` that is not directly reachable (a container on a remote engine); null: connect directly. */
export function appTunnel(app: App, host: string): AppConnector | null {
  if (host === THIS_MACHINE) return null;
  for (const agent of app.agents.values()) {
    const connector = agent.appConnector?.(host);
    if (connector) return connector;
  }
  return null;
}

export async function isAppHost(app: App, host: string): Promise<boolean> {
  if (host === THIS_MACHINE) return true;
  // A container's address on its session network, while that kernel lives (the docker backend).
  for (const agent of new Set(app.agents.values())) if (agent.ownsAppHost?.(host)) return true;
  const agent = await app.db.selectFrom('agents').select('id').where('addr', '=', host).where('status', '=', 'ALIVE').executeTakeFirst();
  return Boolean(agent);
}
