/**
 * A user's bootstrap script (CONTRACT §14.3): run by bash in /home/work before a new session's kernel is ready.
 * Its size and text rules are checked by the route schema (./validation).
 */
import type { App } from '../app';
import { notFound } from '../http/problem';

export async function getBootstrapScript(app: App, userId: string): Promise<string> {
  const row = await app.db.selectFrom('users').select('bootstrap_script').where('uuid', '=', userId).executeTakeFirst();
  if (!row) throw notFound('No such user.');
  return row.bootstrap_script ?? '';
}

export async function setBootstrapScript(app: App, userId: string, script: string): Promise<void> {
  const result = await app.db.updateTable('users').set({ bootstrap_script: script }).where('uuid', '=', userId).executeTakeFirst();
  if (!Number(result.numUpdatedRows)) throw notFound('No such user.');
}
