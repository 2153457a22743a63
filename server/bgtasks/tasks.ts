/**
 * Background tasks (CONTRACT §10.2): long operations (commit, clone, rescans) run detached from the request,
 * persist their progress and announce it on the event bus; finished tasks are remembered for 24 hours.
 */
import { randomUUID } from 'node:crypto';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { canSee } from '../auth/delegation';
import { notFound } from '../http/problem';

export const RETENTION_MS = 24 * 3600 * 1000;

export type Progress = (current: number, total: number, message?: string | null) => void;

/** Starts `work` in the background and returns the task id at once. */
export async function startBackgroundTask(
  app: App,
  owner: { accessKey: string | null; name: string },
  work: (progress: Progress) => Promise<string | null>,
): Promise<string> {
  const id = randomUUID();
  await app.db.insertInto('bgtasks').values({ id, name: owner.name, access_key: owner.accessKey }).execute();
  const progress: Progress = (current, total, message = null) => {
    app.events.publishTask({ name: 'bgtask_updated', taskId: id, payload: { task_id: id, message, current_progress: current, total_progress: total } });
    void app.db.updateTable('bgtasks').set({ current_progress: current, total_progress: total, message }).where('id', '=', id).execute().catch(() => undefined);
  };
  void (async () => {
    let status: 'done' | 'failed' = 'done';
    let message: string | null = null;
    try {
      message = await work(progress);
    } catch (err) {
      status = 'failed';
      message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      app.log.warn({ taskId: id, err }, 'background task failed');
    }
    await app.db.updateTable('bgtasks').set({ status, message, finished_at: new Date() }).where('id', '=', id).execute();
    app.events.publishTask({ name: `bgtask_${status}`, taskId: id, payload: { task_id: id, message } });
  })();
  return id;
}

/** A task the caller may follow: its own, its domain's for admins, any for superadmins. 404 otherwise. */
export async function findTask(app: App, caller: Principal, taskId: string) {
  const task = await app.db.selectFrom('bgtasks').selectAll().where('id', '=', taskId).executeTakeFirst();
  const expired = task?.finished_at && Date.now() - task.finished_at.getTime() > RETENTION_MS;
  if (!task || expired) throw notFound('No such background task.');
  if (task.access_key && task.access_key !== caller.accessKey) {
    const owner = await app.keypairs.get(task.access_key);
    if (!owner || !canSee(caller, { accessKey: owner.accessKey, domainName: owner.domainName })) throw notFound('No such background task.');
  }
  return task;
}
