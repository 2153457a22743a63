/** Removing a project the caller manages for good. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { managedGroup } from './values';

export async function purgeProject(app: App, principal: Principal, input: { gid: string }): Promise<void> {
  const group = await managedGroup(app, principal, input.gid);
  await app.db.deleteFrom('groups').where('id', '=', group.id).execute();
}
