/**
 * `modify_compute_session`: a new name (./rename) and a new priority (0-100; the scheduler is asked for a pass, as
 * the queue order changed). The caller has found the session through its own visibility rule.
 */
import type { App } from '../app';
import type { Session } from '../db/schema';
import { badRequest as invalid } from '../http/problem';
import { given } from '../admin/values';
import { renameSession } from './rename';

export interface SessionChanges {
  name?: string | null;
  priority?: number | null;
}

export async function modifySession(app: App, session: Session, changes: SessionChanges): Promise<void> {
  const props = given(changes);
  if (props.priority !== undefined && props.priority !== null) {
    if (!Number.isInteger(props.priority) || props.priority < 0 || props.priority > 100) throw invalid('priority must be an integer from 0 to 100.');
  }
  if (props.name !== undefined && props.name !== null && props.name !== session.name) {
    await renameSession(app, session, props.name);
  }
  if (props.priority !== undefined && props.priority !== null) {
    await app.db.updateTable('sessions').set({ priority: props.priority }).where('id', '=', session.id).execute();
    app.triggerScheduler();
  }
}
