/**
 * `/resource/watcher*`: the agent service an operator controls by agent id. The backends know nothing of HTTP, so
 * the answer for an agent without a watcher here is written on this side.
 */
import type { App } from '../app';
import { agentServices, type AgentService } from '../agents/watcher';
import { Problem } from '../http/problem';

export async function watcherFor(app: App, agentId: string): Promise<AgentService> {
  const service = agentServices(app).get(agentId);
  if (service) return service;
  const known = await app.db.selectFrom('agents').select('id').where('id', '=', agentId).executeTakeFirst();
  if (!known) throw new Problem('object-not-found', `No such agent: ${agentId}`, undefined, { title: 'No such agent.' });
  // A registered agent without a watcher here (another host's) cannot be controlled from this manager.
  throw new Problem('service-unavailable', `The agent ${agentId} has no watcher reachable from this manager.`);
}
