/**
 * The gauges that describe the cluster's state, read from the database when a scrape asks (three grouped queries,
 * whatever the number of sessions: no per-row work in JavaScript), then the text exposition of every metric.
 */
import { sql } from 'kysely';
import type { App } from '../app';
import { toAmounts } from '../resources/slots';
import { metricsOf, processMetrics, type BerthMetrics } from './registry';

async function refreshDatabaseFigures(app: App, metrics: BerthMetrics): Promise<void> {
  const sessions = await app.db
    .selectFrom('sessions')
    .select(['status', sql<number>`count(*)::int`.as('n')])
    .groupBy('status')
    .execute();
  const kernels = await app.db
    .selectFrom('kernels')
    .select(['status', 'agent_id', sql<number>`count(*)::int`.as('n')])
    // Written out (not parameters) so the planner matches the partial index kernels_live.
    .where(sql<boolean>`status not in ('TERMINATED', 'CANCELLED')`)
    .groupBy(['status', 'agent_id'])
    .execute();
  const agents = await app.db.selectFrom('agents').select(['id', 'status', 'available_slots', 'occupied_slots']).execute();

  // Reset first: a status or agent that is gone must not keep reporting its last value.
  metrics.sessions.reset();
  let pending = 0;
  for (const row of sessions) {
    metrics.sessions.set({ status: row.status }, Number(row.n));
    if (row.status === 'PENDING') pending = Number(row.n);
  }
  metrics.schedulerPending.set(pending);
  metrics.kernels.reset();
  for (const row of kernels) metrics.kernels.set({ status: row.status, agent: row.agent_id ?? '' }, Number(row.n));
  metrics.agents.reset();
  metrics.agentSlots.reset();
  const byStatus = new Map<string, number>();
  for (const agent of agents) {
    byStatus.set(agent.status, (byStatus.get(agent.status) ?? 0) + 1);
    if (agent.status === 'TERMINATED') continue;
    const capacity = toAmounts(agent.available_slots);
    const used = toAmounts(agent.occupied_slots);
    for (const slot of new Set([...Object.keys(capacity), ...Object.keys(used)])) {
      metrics.agentSlots.set({ agent: agent.id, slot, kind: 'capacity' }, capacity[slot] ?? 0);
      metrics.agentSlots.set({ agent: agent.id, slot, kind: 'used' }, used[slot] ?? 0);
    }
  }
  for (const [status, n] of byStatus) metrics.agents.set({ status }, n);
}

export interface Exposition {
  contentType: string;
  text: string;
}

/** Every metric of this manager and process in Prometheus' text format. */
export async function scrapeMetrics(app: App): Promise<Exposition> {
  const metrics = metricsOf(app);
  await refreshDatabaseFigures(app, metrics);
  const [own, process] = await Promise.all([metrics.registry.metrics(), processMetrics().metrics()]);
  return { contentType: metrics.registry.contentType, text: `${own}\n${process}` };
}
