/** Kernel console logs: per session (JSON) and per batch task kernel (text). */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import type { Session } from '../db/schema';
import { notFound } from '../http/problem';
import { seesSession } from './access';

export async function kernelLogs(app: App, session: Session, kernelId?: string): Promise<string> {
  let query = app.db.selectFrom('kernels').select(['id', 'agent_id']).where('session_id', '=', session.id);
  query = kernelId ? query.where('id', '=', kernelId) : query.where('cluster_role', '=', 'main');
  const kernel = await query.executeTakeFirst();
  if (!kernel) throw notFound('No such kernel.');
  const agent = kernel.agent_id ? app.agents.get(kernel.agent_id) : undefined;
  return agent ? agent.logs(kernel.id) : '';
}

/** The log of the kernel with this id (the task id of a batch session), if the caller may see its session. */
export async function taskLogs(app: App, caller: Principal, kernelId: string): Promise<string> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(kernelId);
  const row = uuid
    ? await app.db
        .selectFrom('kernels as k')
        .innerJoin('sessions as s', 's.id', 'k.session_id')
        .selectAll('s')
        .select(['k.id as kernel_id'])
        .where((eb) => eb.or([eb('k.id', '=', kernelId), eb('k.session_id', '=', kernelId)]))
        .where('k.cluster_role', '=', 'main')
        .executeTakeFirst()
    : undefined;
  if (!row || !seesSession(caller, row)) throw notFound('No such session.');
  return kernelLogs(app, row, row.kernel_id);
}
