/** POST /session/{name}/rename: only a RUNNING session, to a valid name no live session of the owner has. */
import type { App } from '../app';
import type { Session } from '../db/schema';
import { Problem, badRequest } from '../http/problem';
import { LIVE } from './states';

export async function renameSession(app: App, session: Session, name: string): Promise<void> {
  if (session.status !== 'RUNNING') throw badRequest(`Only a RUNNING session can be renamed; this one is ${session.status}.`);
  if (name.length < 4 || name.length > 64 || !/^\w[\w.-]*\w$/.test(name) || /[^\x00-\x7f]/.test(name)) throw badRequest('Invalid session name.', { name: 'invalid session name' });
  const clash = await app.db.selectFrom('sessions').select('id').where('access_key', '=', session.access_key).where('name', '=', name).where('status', 'in', [...LIVE]).executeTakeFirst();
  if (clash && clash.id !== session.id) throw new Problem('session-already-exists', `A session named "${name}" already exists.`, { existingSessionId: clash.id });
  await app.db.updateTable('sessions').set({ name }).where('id', '=', session.id).execute();
}
