/**
 * A batch session runs its startup command once it is RUNNING; the exit code decides success (0) or failure,
 * then the session terminates and announces session_success or session_failure (CONTRACT §10.1).
 */
import type { App } from '../app';
import type { Session } from '../db/schema';
import { publishSessionEvent } from './transition';
import { terminateSession } from './terminate';

export async function runBatch(app: App, session: Session): Promise<void> {
  const kernel = await app.db.selectFrom('kernels').selectAll().where('session_id', '=', session.id).where('cluster_role', '=', 'main').executeTakeFirst();
  const agent = kernel?.agent_id ? app.agents.get(kernel.agent_id) : undefined;
  if (!kernel || !agent) return;
  let exitCode: number | null = null;
  try {
    const run = await agent.execute(kernel.id, { mode: 'batch', code: '', options: { exec: session.startup_command ?? '' } });
    const timeout = session.batch_timeout ? setTimeout(() => run.send({ op: 'interrupt' }), session.batch_timeout * 1000) : null;
    try {
      const finished = await run.waitFor((e) => e.t === 'finished', Infinity);
      exitCode = Number(finished.exitCode);
    } finally {
      if (timeout) clearTimeout(timeout);
      run.close();
    }
  } catch (err) {
    // The kernel went away mid-run: its exit handler ends the session.
    app.log.info({ sessionId: session.id, err: err instanceof Error ? err.message : err }, 'batch run ended without a result');
    return;
  }
  const success = exitCode === 0;
  await app.db.updateTable('kernels').set({ exit_code: exitCode }).where('id', '=', kernel.id).execute();
  await terminateSession(app, session.id, success ? 'task-done' : 'task-failed', { result: success ? 'success' : 'failure', exitCode });
  const ended = await app.db.selectFrom('sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
  publishSessionEvent(app, ended, success ? 'session_success' : 'session_failure', success ? 'task-done' : 'task-failed', exitCode);
}
