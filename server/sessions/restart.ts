/** PATCH /session/{name}: restarts every kernel in place; the files in /home/work stay. */
import type { App } from '../app';
import type { Session } from '../db/schema';
import { Problem } from '../http/problem';
import { json } from '../db';
import { buildKernelSpecs } from './kernel-spec';
import { transitionKernel, transitionSession } from './transition';

export async function restartSession(app: App, session: Session): Promise<void> {
  const restarting = await transitionSession(app, session.id, 'RESTARTING', { reason: 'restarting' });
  if (!restarting) throw new Problem('invalid-api-params', `A ${session.status} session cannot be restarted.`);
  const kernels = await app.db.selectFrom('kernels').selectAll().where('session_id', '=', session.id).orderBy('cluster_idx').execute();
  const image = await app.db.selectFrom('images').selectAll().where('id', '=', session.image_id).executeTakeFirstOrThrow();
  try {
    for (const kernel of kernels) {
      const agent = app.agents.get(kernel.agent_id ?? '');
      if (!agent) throw new Error('the kernel\'s agent is not connected');
      await agent.destroyKernel(kernel.id, { keepScratch: true });
      const [spec] = await buildKernelSpecs(app, restarting, kernels, image, [kernel]);
      const [info] = await agent.createKernels([{ ...spec, snapshotDir: null, files: [] }]);
      await app.db.updateTable('kernels').set({ agent_id: info.agentId, container_id: info.containerId, channel: json(info.endpoint) }).where('id', '=', kernel.id).execute();
      await transitionKernel(app, kernel.id, 'RUNNING', { reason: 'restarting' });
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await transitionSession(app, session.id, 'ERROR', { reason: 'restart-timeout', statusData: { error: { message } } });
    throw new Problem('kernel-restart-failed', message);
  }
  await transitionSession(app, session.id, 'RUNNING', { reason: 'restarting' });
}
