/**
 * `POST /manager/scheduler/operation` (CONTRACT §5.5, §15): take agents out of scheduling (`exclude-agents`)
 * or put them back (`include-agents`, which also asks for a scheduling pass, since capacity just appeared).
 * All ids must exist, or nothing changes.
 */
import type { App } from '../app';
import { notFound } from '../http/problem';

export type AgentOperation = 'include-agents' | 'exclude-agents';

export async function setAgentsSchedulable(app: App, op: AgentOperation, agentIds: string[]): Promise<Record<string, never>> {
  const ids = [...new Set(agentIds)];
  const schedulable = op === 'include-agents';
  await app.db.transaction().execute(async (trx) => {
    const found = await trx.selectFrom('agents').select('id').where('id', 'in', ids).execute();
    const known = new Set(found.map((row) => row.id));
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length) throw notFound('No such agent.', `No such agent: ${missing.join(', ')}`);
    await trx.updateTable('agents').set({ schedulable }).where('id', 'in', ids).execute();
  });
  if (schedulable) app.triggerScheduler(op);
  return {};
}
