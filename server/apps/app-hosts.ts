/**
 * The addresses the app proxy may forward to: this machine, and the address of a registered agent that is alive
 * (a cluster node). A stored route is only ever written with its kernel's node, but the proxy checks anyway, so
 * no route can make it reach another host.
 */
import type { App } from '../app';

export const THIS_MACHINE = '127.0.0.1';

export async function isAppHost(app: App, host: string): Promise<boolean> {
  if (host === THIS_MACHINE) return true;
  const agent = await app.db.selectFrom('agents').select('id').where('addr', '=', host).where('status', '=', 'ALIVE').executeTakeFirst();
  return Boolean(agent);
}
