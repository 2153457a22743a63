/** Gives a kernel's slots back to its agent: the one place occupied slots are decremented, once per kernel. */
import { sql } from 'kysely';
import type { App } from '../app';
import { json } from '../db';
import { formatAmount, toAmounts } from '../resources/slots';

export async function releaseKernelSlots(app: App, kernelId: string): Promise<void> {
  await app.db.transaction().execute(async (trx) => {
    const kernel = await trx.selectFrom('kernels').select(['agent_id', 'occupied_slots', 'status_data']).where('id', '=', kernelId).forUpdate().executeTakeFirst();
    if (!kernel?.agent_id || kernel.status_data.slotsReleased) return;
    const agent = await trx.selectFrom('agents').select('occupied_slots').where('id', '=', kernel.agent_id).forUpdate().executeTakeFirst();
    if (agent) {
      const occupied = toAmounts(agent.occupied_slots);
      for (const [slot, amount] of Object.entries(toAmounts(kernel.occupied_slots))) occupied[slot] = Math.max(0, (occupied[slot] ?? 0) - amount);
      const formatted = Object.fromEntries(Object.entries(occupied).map(([k, v]) => [k, formatAmount(v)]));
      await trx.updateTable('agents').set({ occupied_slots: json(formatted) }).where('id', '=', kernel.agent_id).execute();
    }
    await trx
      .updateTable('kernels')
      .set({ status_data: sql`status_data || '{"slotsReleased": true}'::jsonb` })
      .where('id', '=', kernelId)
      .execute();
  });
}

/**
 * A cluster backend's workload manager placed the kernel elsewhere than the scheduler's tentative agent: the
 * kernel and its slots move to the agent it really runs on, in one transaction.
 */
export async function moveKernelToAgent(app: App, kernelId: string, agentId: string): Promise<void> {
  await app.db.transaction().execute(async (trx) => {
    const kernel = await trx.selectFrom('kernels').select(['agent_id', 'occupied_slots']).where('id', '=', kernelId).forUpdate().executeTakeFirst();
    if (!kernel || kernel.agent_id === agentId) return;
    const ids = [kernel.agent_id, agentId].filter((id): id is string => Boolean(id)).sort();
    const agents = await trx.selectFrom('agents').select(['id', 'occupied_slots']).where('id', 'in', ids).orderBy('id').forUpdate().execute();
    for (const agent of agents) {
      const sign = agent.id === agentId ? 1 : -1;
      const occupied = toAmounts(agent.occupied_slots);
      for (const [slot, amount] of Object.entries(toAmounts(kernel.occupied_slots))) occupied[slot] = Math.max(0, (occupied[slot] ?? 0) + sign * amount);
      const formatted = Object.fromEntries(Object.entries(occupied).map(([k, v]) => [k, formatAmount(v)]));
      await trx.updateTable('agents').set({ occupied_slots: json(formatted) }).where('id', '=', agent.id).execute();
    }
    await trx.updateTable('kernels').set({ agent_id: agentId }).where('id', '=', kernelId).execute();
  });
}
