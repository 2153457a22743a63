/**
 * A kernel that exits on its own (crash, out of memory, killed) ends its session with the reason recorded:
 * status_info `self-terminated`, and status_data naming the exit code and whether the memory limit killed it.
 */
import type { App } from '../app';
import type { KernelExit } from '../agents/agent';
import { terminateSession } from './terminate';
import { transitionKernel } from './transition';

export async function handleKernelExit(app: App, exit: KernelExit): Promise<void> {
  const kernel = await app.db.selectFrom('kernels').select(['session_id', 'status']).where('id', '=', exit.kernelId).executeTakeFirst();
  // Only a kernel that was up: one that dies while starting is the launch's failure (ERROR, failed-to-start).
  if (!kernel || !['RUNNING', 'RESTARTING', 'RUNNING_DEGRADED'].includes(kernel.status)) return;
  const error = {
    exitCode: exit.exitCode,
    oomKilled: exit.oomKilled,
    message: exit.oomKilled ? 'The kernel exceeded its memory limit and was killed.' : `The kernel exited unexpectedly (code ${exit.exitCode ?? 'unknown'}).`,
  };
  await transitionKernel(app, exit.kernelId, 'TERMINATING', { reason: 'self-terminated', exitCode: exit.exitCode, statusData: { error } });
  await terminateSession(app, kernel.session_id, 'self-terminated', { statusData: { error }, exitCode: exit.exitCode });
}
