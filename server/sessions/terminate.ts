/**
 * Ends a session: TERMINATING, every kernel destroyed on its agent and its slots released, then TERMINATED
 * (or CANCELLED for a session that never left the queue). Safe to call twice: the state machine lets one win.
 */
import type { App } from '../app';
import type { Agent } from '../agents/agent';
import { transitionKernel, transitionSession, type TransitionOptions } from './transition';
import { releaseKernelSlots } from './release';
import { formatKernelStat } from './kernel-stats';
import { measureTree } from '../storage/folder-operations';
import { reachKernel } from '../cluster/kernels';

export interface TerminationResult {
  /** The last stats of the main kernel, or null. */
  stats: Record<string, unknown> | null;
}

export async function terminateSession(app: App, sessionId: string, reason: string, options: Omit<TransitionOptions, 'reason'> = {}): Promise<TerminationResult> {
  const current = await app.db.selectFrom('sessions').select('status').where('id', '=', sessionId).executeTakeFirst();
  if (!current) return { stats: null };
  if (current.status === 'PENDING' || current.status === 'SCHEDULED') {
    // Conditional on the status read: a scheduling pass (of any replica) that placed the session meanwhile makes it
    // fail, and the session is ended from what it is now; its kernels never keep slots behind a cancelled session.
    const cancelled = await transitionSession(app, sessionId, 'CANCELLED', { reason, ...options, from: [current.status] });
    if (!cancelled) return terminateSession(app, sessionId, reason, options);
    const kernels = await app.db.selectFrom('kernels').select('id').where('session_id', '=', sessionId).orderBy('cluster_idx').execute();
    for (const kernel of kernels) {
      await transitionKernel(app, kernel.id, 'CANCELLED', { reason });
      if (current.status === 'SCHEDULED') await releaseKernelSlots(app, kernel.id);
    }
    if (current.status === 'SCHEDULED') app.triggerScheduler();
    return { stats: null };
  }
  const terminating = await transitionSession(app, sessionId, 'TERMINATING', { reason });
  if (!terminating && current.status !== 'TERMINATING' && current.status !== 'ERROR') return { stats: null };
  const kernels = await app.db.selectFrom('kernels').selectAll().where('session_id', '=', sessionId).orderBy('cluster_idx').execute();
  let stats: Record<string, unknown> | null = null;
  for (const kernel of kernels) {
    // Another replica may have launched it: adopted here first, so destroying it reaches its processes.
    const agent = await reachKernel(app, kernel);
    if (agent && kernel.cluster_role === 'main') stats = await finalStat(agent, kernel.id);
    // A kernel that exited on its own is already TERMINATING (and announced so): once per kernel.
    if (kernel.status !== 'TERMINATING') await transitionKernel(app, kernel.id, 'TERMINATING', { reason, exitCode: options.exitCode ?? kernel.exit_code });
    try {
      await agent?.destroyKernel(kernel.id);
    } catch (err) {
      app.log.warn({ err, kernelId: kernel.id }, 'kernel destruction failed');
    }
    await transitionKernel(app, kernel.id, 'TERMINATED', { reason, exitCode: options.exitCode ?? kernel.exit_code });
    await releaseKernelSlots(app, kernel.id);
  }
  if (stats) await app.db.updateTable('kernels').set({ last_stat: JSON.stringify(stats) }).where('session_id', '=', sessionId).where('cluster_role', '=', 'main').execute();
  await transitionSession(app, sessionId, 'TERMINATED', { reason, ...options });
  app.triggerScheduler();
  return { stats: stats ?? (kernels[0]?.last_stat ?? null) };
}

/** The kernel's last figures, with the size of its scratch directory (usage reports bill it as disk_used). */
async function finalStat(agent: Agent, kernelId: string): Promise<Record<string, unknown>> {
  const scratch = await measureTree(agent.scratchDir(kernelId)).catch(() => null);
  return formatKernelStat(agent.stats(kernelId), scratch?.usedBytes ?? null);
}
