/** Deactivating a project the caller manages: it stays, inactive. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { managedGroup } from './values';

export async function deleteProject(app: App, principal: Principal, input: { gid: string }): Promise<void> {
  const group = await managedGroup(app, principal, input.gid);
  await app.db.updateTable('groups').set({ is_active: false, modified_at: new Date() }).where('id', '=', group.id).execute();
}
