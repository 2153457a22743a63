/** Deactivating a domain (superadmins): it stays, inactive. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { noSuch, requireSuperadmin } from '../auth/privilege';

export async function deleteDomain(app: App, principal: Principal, input: { name: string }): Promise<void> {
  requireSuperadmin(principal);
  const result = await app.db.updateTable('domains').set({ is_active: false, modified_at: new Date() }).where('name', '=', input.name).executeTakeFirst();
  if (!Number(result.numUpdatedRows)) throw noSuch('domain');
}
