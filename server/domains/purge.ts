/** Removing a domain and its projects (superadmins); refused while users belong to it. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { noSuch, requireSuperadmin } from '../auth/privilege';
import { Problem } from '../http/problem';
import { loadDomain } from './values';

export async function purgeDomain(app: App, principal: Principal, input: { name: string }): Promise<void> {
  requireSuperadmin(principal);
  if (!(await loadDomain(app, input.name))) throw noSuch('domain');
  const user = await app.db.selectFrom('users').select('uuid').where('domain_name', '=', input.name).executeTakeFirst();
  if (user) throw new Problem('generic-bad-request', 'There are users bound to the domain. Purge them first.');
  await app.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('groups').where('domain_name', '=', input.name).execute();
    await trx.deleteFrom('domains').where('name', '=', input.name).execute();
  });
}
