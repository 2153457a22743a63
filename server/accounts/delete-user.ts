/** An admin deletes a user they manage: the account stays, marked deleted, with every keypair deactivated. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { Problem } from '../http/problem';
import { managedUser } from './managed-users';

export async function deleteUser(app: App, principal: Principal, input: { email: string }): Promise<void> {
  const user = await managedUser(app, principal, input.email);
  if (user.uuid === principal.userId) throw new Problem('generic-bad-request', 'You cannot delete your own account.');
  await app.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ status: 'deleted', modified_at: new Date() }).where('uuid', '=', user.uuid).execute();
    await trx.updateTable('keypairs').set({ is_active: false, modified_at: new Date() }).where('user_id', '=', user.uuid).execute();
  });
  app.keypairs.invalidate();
}
