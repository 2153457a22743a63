/**
 * A batch session runs its startup command once it is RUNNING; the exit code decides success (0) or failure,
 * then the session terminates and announces session_success or session_failure (CONTRACT §10.1). The command is
 * detached from the manager's connection: after a manager restart, `followBatch` picks up the same run (or its
 * recorded exit code) instead of leaving the session RUNNING forever.
 */
import type { App } from '../app';
import type { RunnerConnection } from '../agents/channel/connection';
import type { Session } from '../db/schema';
import { publishSessionEvent } from './transition';
import { terminateSession } from './terminate';

export async function runBatch(app: App, session: Session, { resume = false } = {}): Promise<void> {
  const kernel = await app.db.selectFrom('kernels').selectAll().where('session_id', '=', session.id).where('cluster_role', '=', 'main').executeTakeFirst();
  const agent = kernel?.agent_id ? app.agents.get(kernel.agent_id) : undefined;
  if (!kernel || !agent) return;
  let exitCode: number | null = null;
  try {
    const run = resume ? await agent.followBatch(kernel.id) : await startBatch(agent, kernel.id, session);
    const timeout = batchTimeout(session, () => run.send({ op: 'interrupt' }));
    try {
      const ended = await run.waitFor((e) => e.t === 'finished' || e.t === 'error', Infinity);
      if (ended.t === 'error') {
        // The manager stopped before the command was started: start it now.
        run.close();
        if (resume) return runBatch(app, session);
        throw new Error(String(ended.msg));
      }
      exitCode = Number(ended.exitCode);
    } finally {
      if (timeout) clearTimeout(timeout);
      run.close();
    }
  } catch (err) {
    // The kernel went away mid-run (its exit handler ends the session), or the manager is stopping.
    app.log.info({ sessionId: session.id, err: err instanceof Error ? err.message : err }, 'batch run ended without a result');
    return;
  }
  const success = exitCode === 0;
  await app.db.updateTable('kernels').set({ exit_code: exitCode }).where('id', '=', kernel.id).execute();
  await terminateSession(app, session.id, success ? 'task-done' : 'task-failed', { result: success ? 'success' : 'failure', exitCode });
  const ended = await app.db.selectFrom('sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
  publishSessionEvent(app, ended, success ? 'session_success' : 'session_failure', success ? 'task-done' : 'task-failed', exitCode);
}

function startBatch(agent: NonNullable<ReturnType<App['agents']['get']>>, kernelId: string, session: Session): Promise<RunnerConnection> {
  return agent.execute(kernelId, { mode: 'batch', code: '', options: { exec: session.startup_command ?? '', detach: true } });
}

/** Interrupts the command when the session's batch_timeout (counted from RUNNING) runs out. */
function batchTimeout(session: Session, interrupt: () => void): NodeJS.Timeout | null {
  if (!session.batch_timeout) return null;
  const runningSince = Date.parse(session.status_history?.RUNNING ?? '') || Date.now();
  const left = Math.max(0, runningSince + session.batch_timeout * 1000 - Date.now());
  return setTimeout(interrupt, left);
}
