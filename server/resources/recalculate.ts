/**
 * `POST /resource/recalculate-usage`: rebuilds every agent's occupied slots from the kernels that really hold
 * resources, repairing drift after crashes. Keypair usage is always summed from live sessions (./usage), so
 * there is no separate counter to rebuild.
 */
import type { App } from '../app';
import { json } from '../db';
import { OCCUPYING_AGENT } from '../sessions/states';
import { addAmounts, formatAmount, toAmounts, type Amounts } from './slots';

export async function recalculateUsage(app: App): Promise<Record<string, never>> {
  await app.db.transaction().execute(async (trx) => {
    const agents = await trx.selectFrom('agents').select('id').forUpdate().execute();
    const kernels = await trx
      .selectFrom('kernels as k')
      .innerJoin('sessions as s', 's.id', 'k.session_id')
      .select(['k.agent_id', 'k.occupied_slots', 'k.status_data'])
      .where('s.status', 'in', [...OCCUPYING_AGENT])
      .where('k.agent_id', 'is not', null)
      .execute();
    const occupied = new Map<string, Amounts>(agents.map((a) => [a.id, {}]));
    for (const kernel of kernels) {
      if (kernel.status_data.slotsReleased) continue;
      const sum = occupied.get(kernel.agent_id!);
      if (sum) addAmounts(sum, toAmounts(kernel.occupied_slots));
    }
    for (const [id, amounts] of occupied) {
      const formatted = Object.fromEntries(Object.entries(amounts).map(([k, v]) => [k, formatAmount(v)]));
      await trx.updateTable('agents').set({ occupied_slots: json(formatted) }).where('id', '=', id).execute();
    }
  });
  app.triggerScheduler();
  return {};
}
