/**
 * Starts a scheduled session: PREPARING, one sandbox per kernel on its agent (in parallel), then RUNNING. A
 * kernel that fails to start takes the session to ERROR with the agent's reason; batch sessions then run their
 * startup command (./batch).
 */
import type { App } from '../app';
import type { Kernel, Session } from '../db/schema';
import { buildKernelSpec } from './kernel-spec';
import { publishKernelEvent, transitionKernel, transitionSession } from './transition';
import { releaseKernelSlots } from './release';
import { runBatch } from './batch';

export async function launchSession(app: App, sessionId: string): Promise<void> {
  const session = await transitionSession(app, sessionId, 'PREPARING');
  if (!session) return;
  const kernels = await app.db.selectFrom('kernels').selectAll().where('session_id', '=', sessionId).orderBy('cluster_idx').execute();
  const image = await app.db.selectFrom('images').selectAll().where('id', '=', session.image_id).executeTakeFirstOrThrow();
  const results = await Promise.allSettled(kernels.map((kernel) => startKernel(app, session, kernel, kernels, image)));
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    const message = failure.reason instanceof Error ? failure.reason.message : String(failure.reason);
    app.log.warn({ sessionId, err: message }, 'session failed to start');
    for (const kernel of kernels) {
      const agent = kernel.agent_id ? app.agents.get(kernel.agent_id) : undefined;
      await agent?.destroyKernel(kernel.id).catch(() => undefined);
      await transitionKernel(app, kernel.id, 'ERROR', { reason: 'failed-to-start', statusData: { error: { message } } });
      await releaseKernelSlots(app, kernel.id);
    }
    await transitionSession(app, sessionId, 'ERROR', { reason: 'failed-to-start', statusData: { error: { name: 'KernelCreationFailed', message } } });
    app.triggerScheduler();
    return;
  }
  const running = await transitionSession(app, sessionId, 'RUNNING');
  if (!running) {
    // Destroyed while its kernels were starting: whatever started late must not outlive it.
    for (const kernel of kernels) await app.agents.get(kernel.agent_id ?? '')?.destroyKernel(kernel.id).catch(() => undefined);
    return;
  }
  if (running.session_type === 'batch' || running.session_type === 'system') void runBatch(app, running);
}

async function startKernel(app: App, session: Session, kernel: Kernel, peers: Kernel[], image: Parameters<typeof buildKernelSpec>[4]): Promise<void> {
  const agent = kernel.agent_id ? app.agents.get(kernel.agent_id) : undefined;
  if (!agent) throw new Error(`agent ${kernel.agent_id ?? '(none)'} is not connected to this manager`);
  const preparing = await transitionKernel(app, kernel.id, 'PREPARING');
  if (preparing) await publishKernelEvent(app, preparing, 'kernel_creating', '', null);
  const spec = await buildKernelSpec(app, session, kernel, peers, image);
  const info = await agent.createKernel(spec);
  await app.db.updateTable('kernels').set({ container_id: String(info.pid) }).where('id', '=', kernel.id).execute();
  await transitionKernel(app, kernel.id, 'RUNNING');
  // Its exit is ignored until it is RUNNING (./kernel-exits): one that died before that fails the launch.
  if (!agent.isAlive(kernel.id)) throw new Error('the kernel exited right after starting');
}
