/** An admin removes a user they manage for good. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { Problem } from '../http/problem';
import { managedUser } from './managed-users';

export async function purgeUser(app: App, principal: Principal, input: { email: string }): Promise<void> {
  const user = await managedUser(app, principal, input.email);
  if (user.uuid === principal.userId) throw new Problem('generic-bad-request', 'You cannot purge your own account.');
  await app.db.deleteFrom('users').where('uuid', '=', user.uuid).execute();
  app.keypairs.invalidate();
}
