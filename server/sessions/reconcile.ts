/**
 * After a (re)start: kernels whose sandboxes are still alive are adopted again; sessions whose sandboxes died
 * with the machine or the manager end TERMINATED with reason `container-not-found`, so none is left RUNNING
 * without a process. A launch the crash interrupted (PREPARING) ends the same way: its sandboxes are not adopted
 * half-started. Sessions caught between scheduling and start are launched again; batch sessions follow the
 * command they were running. Last, every sandbox left that no session accounts for is killed
 * (agents/local/orphans), so none runs on unaccounted after a crash at any point of a launch.
 */
import type { App } from '../app';
import { isKernelEndpoint } from '../agents/channel/endpoint';
import { endOrphanSandboxes } from '../agents/local/orphans';
import { runBatch } from './batch';
import { launchSession } from './launch';
import { terminateSession } from './terminate';
import { transitionKernel } from './transition';

const HOLDING_A_SANDBOX = ['PREPARING', 'RUNNING', 'RESTARTING', 'RUNNING_DEGRADED', 'TERMINATING', 'ERROR'];

/**
 * `relaunchInterrupted`: this replica took the scheduler over from a leader that died while other replicas kept
 * serving (docs/architecture.md "Scale-out"): the launches it left PREPARING start again from scratch (their
 * half-started sandboxes are ended first with the orphans) instead of ending, so no session is lost to a takeover.
 */
export async function reconcileSessions(app: App, options: { relaunchInterrupted?: boolean } = {}): Promise<void> {
  const sessions = await app.db.selectFrom('sessions').selectAll().where('status', 'in', [...HOLDING_A_SANDBOX, 'SCHEDULED']).execute();
  // Launched after the orphan sweep, so that the sweep cannot take their new sandboxes for orphans.
  const launches: string[] = [];
  for (const session of sessions) {
    if (session.status === 'SCHEDULED') {
      launches.push(session.id);
      continue;
    }
    const interrupted = session.status === 'PREPARING';
    if (interrupted && options.relaunchInterrupted) {
      app.log.info({ sessionId: session.id }, 'launching again a session whose launch the previous leader left');
      launches.push(session.id);
      continue;
    }
    const kernels = await app.db.selectFrom('kernels').selectAll().where('session_id', '=', session.id).execute();
    let lost = false;
    for (const kernel of kernels) {
      const agent = kernel.agent_id ? app.agents.get(kernel.agent_id) : undefined;
      const endpoint = isKernelEndpoint(kernel.channel) ? kernel.channel : null;
      const alive = !interrupted && agent && kernel.container_id ? await agent.adoptKernel(kernel.id, kernel.container_id, endpoint) : false;
      if (!alive && !['TERMINATED', 'CANCELLED', 'ERROR'].includes(kernel.status)) {
        lost = true;
        await transitionKernel(app, kernel.id, 'TERMINATED', { reason: 'container-not-found' });
      }
    }
    if (lost || session.status === 'TERMINATING') {
      app.log.info({ sessionId: session.id }, 'ending a session whose sandbox did not survive');
      await terminateSession(app, session.id, 'container-not-found');
    } else {
      app.log.info({ sessionId: session.id }, 'adopted a running session');
      const runsCommand = session.session_type === 'batch' || session.session_type === 'system';
      if (runsCommand && session.status === 'RUNNING') void runBatch(app, session, { resume: true });
    }
  }
  const ended = await endOrphanSandboxes(app);
  if (ended.length) app.log.warn({ kernels: ended }, 'ended sandboxes no session accounted for');
  for (const id of launches) void launchSession(app, id, { resume: true });
}
