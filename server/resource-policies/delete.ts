/** Deleting a resource policy (superadmins); refused while keypairs, users or projects still use it. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { noSuch, requireSuperadmin } from '../auth/privilege';
import { Problem } from '../http/problem';
import { USED_BY, loadPolicy, type PolicyTable } from './values';

export async function deleteResourcePolicy(app: App, principal: Principal, table: PolicyTable, name: string): Promise<void> {
  requireSuperadmin(principal);
  if (!(await loadPolicy(app, table, name))) throw noSuch('resource policy');
  const use = USED_BY[table];
  const user = await app.db.selectFrom(use.table).select(use.column).where(use.column, '=', name).executeTakeFirst();
  if (user) throw new Problem('generic-bad-request', `Resource policy ${name} is still used by ${use.what}.`);
  await app.db.deleteFrom(table).where('name', '=', name).execute();
}

