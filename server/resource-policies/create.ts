/** Creating a resource policy of one kind (superadmins). */
import type { Insertable } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireSuperadmin } from '../auth/privilege';
import { json } from '../db';
import type { KeypairResourcePolicyTable, ProjectResourcePolicyTable, UserResourcePolicyTable } from '../db/schema';
import { Problem } from '../http/problem';
import { checkName } from '../admin/values';
import { loadPolicy, policyValues, type PolicyTable } from './values';

export async function createResourcePolicy(app: App, principal: Principal, table: PolicyTable, name: string, props: Record<string, unknown>) {
  const defaults = table === 'keypair_resource_policies' ? { total_resource_slots: json({}), allowed_vfolder_hosts: json({}) } : {};
  const values = { ...defaults, ...policyValues(table, props) };
  requireSuperadmin(principal);
  checkName(name, 'resource policy');
  if (await loadPolicy(app, table, name)) throw new Problem('generic-bad-request', `Resource policy ${name} already exists.`);
  await app.db.insertInto(table).values({ name, ...values } as Insertable<KeypairResourcePolicyTable & UserResourcePolicyTable & ProjectResourcePolicyTable>).execute();
  return { resource_policy: await loadPolicy(app, table, name) };
}

