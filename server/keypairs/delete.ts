/** An admin deletes a keypair within their reach; a user's main keypair stays. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { Problem } from '../http/problem';
import { loadUserBy } from '../accounts/managed-users';
import { managedKeypair } from './values';

export async function deleteKeypair(app: App, principal: Principal, input: { access_key: string }): Promise<void> {
  const row = await managedKeypair(app, principal, input.access_key);
  const owner = await loadUserBy(app, 'uuid', row.user_id);
  if (owner?.main_access_key === row.access_key) throw new Problem('generic-bad-request', 'Cannot delete the main access key of a user.');
  await app.db.deleteFrom('keypairs').where('access_key', '=', row.access_key).execute();
  app.keypairs.invalidate(row.access_key);
}
