/** Changing a resource policy (superadmins). */
import type { Updateable } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { noSuch, requireSuperadmin } from '../auth/privilege';
import type { KeypairResourcePolicyTable, ProjectResourcePolicyTable, UserResourcePolicyTable } from '../db/schema';
import { loadPolicy, policyValues, type PolicyTable } from './values';

export async function modifyResourcePolicy(app: App, principal: Principal, table: PolicyTable, name: string, props: Record<string, unknown>) {
  const set = policyValues(table, props);
  requireSuperadmin(principal);
  if (!(await loadPolicy(app, table, name))) throw noSuch('resource policy');
  if (Object.keys(set).length) await app.db.updateTable(table).set(set as Updateable<KeypairResourcePolicyTable & UserResourcePolicyTable & ProjectResourcePolicyTable>).where('name', '=', name).execute();
  return { resource_policy: await loadPolicy(app, table, name) };
}

