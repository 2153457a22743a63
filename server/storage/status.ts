/** Folder status changes (CONTRACT §5.3), recorded in `status_history` and made only from an expected status. */
import { sql } from 'kysely';
import type { App } from '../app';
import { json } from '../db';

/** Moves a folder to a new status if it is still in one of `from`; false when someone else moved it first. */
export async function transitionFolder(app: App, id: string, from: readonly string[], to: string): Promise<boolean> {
  const now = new Date();
  const result = await app.db
    .updateTable('vfolders')
    .set({ status: to, status_changed: now, status_history: sql`status_history || ${json({ [to]: now.toISOString() })}::jsonb` })
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
