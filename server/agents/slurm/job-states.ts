/** What a Slurm job's state means for Berth: whether it still holds its kernels, and how they ended. */
import type { KernelExit } from '../agent';
import type { SlurmJob } from './parse';

const ACTIVE = new Set(['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED', 'REQUEUED', 'RESIZING', 'SIGNALING', 'STAGE_OUT']);

export function isActive(state: string | undefined | null): boolean {
  return Boolean(state && ACTIVE.has(state));
}

/**
 * A job that ended: its exit code for COMPLETED and FAILED (the kernel's own exit: TERMINATED), a reason for the
 * rest. A lost node or a failure of Slurm itself is an ERROR of the session.
 */
export function jobExit(job: SlurmJob | null): Omit<KernelExit, 'kernelId'> {
  if (!job) return { exitCode: null, oomKilled: false, reason: 'job-vanished', failed: true, message: 'The Slurm job is no longer known to Slurm.' };
  const exitCode = job.exitCode;
  switch (job.state) {
    case 'COMPLETED':
    case 'FAILED':
      return { exitCode, oomKilled: false };
    case 'OUT_OF_MEMORY':
      return { exitCode, oomKilled: true };
    case 'CANCELLED':
      return { exitCode, oomKilled: false, reason: 'job-cancelled', message: 'The Slurm job was cancelled outside Berth.' };
    case 'TIMEOUT':
    case 'DEADLINE':
      return { exitCode, oomKilled: false, reason: 'time-limit', message: 'The Slurm job reached its time limit.' };
    case 'NODE_FAIL':
      return { exitCode, oomKilled: false, reason: 'node-lost', failed: true, message: `The node running the Slurm job failed (${job.nodeList ?? 'unknown node'}).` };
    default:
      return { exitCode, oomKilled: false, reason: `job-${job.state.toLowerCase().replace(/_/g, '-')}`, failed: true, message: `The Slurm job ended ${job.state}${job.reason ? ` (${job.reason})` : ''}.` };
  }
}
