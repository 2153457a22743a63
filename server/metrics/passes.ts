/** Times the scheduler's passes (berth_scheduler_pass_seconds) and sessions' starts (berth_session_start_seconds). */
import type { App } from '../app';
import { metricsOf } from './registry';

/** Runs one scheduler pass and records how long it took, failed or not. */
export async function timePass<T>(app: App, pass: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    metricsOf(app).schedulerPass.observe({ pass }, (performance.now() - started) / 1000);
  }
}

/**
 * Observes POST /session → RUNNING for every session this manager starts: from the session's creation to the
 * `session_started` event. A restart's return to RUNNING is not a start.
 */
export function watchSessionStarts(app: App): () => void {
  // Events this replica raised only: every replica sees every event, and each start must count once.
  return app.events.onLocalSession((event) => {
    if (event.name !== 'session_started') return;
    const running = Date.now();
    app.db
      .selectFrom('sessions')
      .select(['created_at', 'status_history'])
      .where('id', '=', event.payload.sessionId)
      .executeTakeFirst()
      .then((row) => {
        if (!row || 'RESTARTING' in (row.status_history ?? {})) return;
        metricsOf(app).sessionStart.observe(Math.max(0, running - row.created_at.getTime()) / 1000);
      })
      .catch((err: unknown) => app.log.debug({ err }, 'session start not measured'));
  });
}
