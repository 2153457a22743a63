/**
 * A kernel that exits on its own (crash, out of memory, killed, its batch job ended) ends its session with the
 * reason recorded: status_info `self-terminated` (or the backend's reason: `job-cancelled`, `time-limit`), and
 * status_data naming the exit code and whether the memory limit killed it. When the machinery failed rather than
 * the kernel (its node was lost), the session goes to ERROR with the reason and its kernels are cleaned up.
 */
import type { App } from '../app';
import type { KernelExit } from '../agents/agent';
import { terminateSession } from './terminate';
import { transitionKernel, transitionSession } from './transition';
import { releaseKernelSlots } from './release';

export async function handleKernelExit(app: App, exit: KernelExit): Promise<void> {
  const kernel = await app.db.selectFrom('kernels').select(['session_id', 'status']).where('id', '=', exit.kernelId).executeTakeFirst();
  // Only a kernel that was up: one that dies while starting is the launch's failure (ERROR, failed-to-start).
  if (!kernel || !['RUNNING', 'RESTARTING', 'RUNNING_DEGRADED'].includes(kernel.status)) return;
  const error = {
    exitCode: exit.exitCode,
    oomKilled: exit.oomKilled,
    message: exit.message ?? (exit.oomKilled ? 'The kernel exceeded its memory limit and was killed.' : `The kernel exited unexpectedly (code ${exit.exitCode ?? 'unknown'}).`),
  };
  const reason = exit.reason ?? 'self-terminated';
  if (exit.failed) {
    await failSession(app, kernel.session_id, reason, error);
    return;
  }
  await transitionKernel(app, exit.kernelId, 'TERMINATING', { reason, exitCode: exit.exitCode, statusData: { error } });
  await terminateSession(app, kernel.session_id, reason, { statusData: { error }, exitCode: exit.exitCode });
}

async function failSession(app: App, sessionId: string, reason: string, error: Record<string, unknown>): Promise<void> {
  const kernels = await app.db.selectFrom('kernels').select(['id', 'agent_id']).where('session_id', '=', sessionId).execute();
  for (const kernel of kernels) {
    await app.agents.get(kernel.agent_id ?? '')?.destroyKernel(kernel.id, { keepScratch: true }).catch(() => undefined);
    await transitionKernel(app, kernel.id, 'ERROR', { reason, statusData: { error } });
    await releaseKernelSlots(app, kernel.id);
  }
  await transitionSession(app, sessionId, 'ERROR', { reason, statusData: { error } });
  app.triggerScheduler();
}
