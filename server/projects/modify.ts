/** Changing a project the caller manages: its settings, its domain (superadmins), and adding or removing members of its domain. */
import type { Updateable } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { isSuperadmin } from '../auth/principal';
import { outsideDomain } from '../auth/privilege';
import { json } from '../db';
import type { GroupTable } from '../db/schema';
import { badRequest as invalid } from '../http/problem';
import { given, hostPermissions, normaliseSlots } from '../admin/values';
import { loadDomain } from '../domains/values';
import { canonicalUuid } from '../util/uuid';
import { loadGroup, managedGroup, type GroupProps } from './values';
import { checkPolicyExists } from '../resource-policies/values';

export async function modifyProject(app: App, principal: Principal, input: { gid: string; props: GroupProps }) {
  const group = await managedGroup(app, principal, input.gid);
  const props = given(input.props);
  const set: Updateable<GroupTable> = { modified_at: new Date() };
  if (props.name !== undefined && props.name !== null) {
    const name = props.name.trim();
    if (!name || name.length > 64) throw invalid('The project name must be 1 to 64 characters.');
    set.name = name;
  }
  if (props.description !== undefined) set.description = props.description ?? '';
  if (props.is_active !== undefined && props.is_active !== null) set.is_active = props.is_active;
  if (props.domain_name && props.domain_name !== group.domain_name) {
    if (!isSuperadmin(principal)) throw outsideDomain();
    if (!(await loadDomain(app, props.domain_name))) throw invalid(`No such domain: ${props.domain_name}`);
    set.domain_name = props.domain_name;
  }
  if (props.total_resource_slots !== undefined) set.total_resource_slots = json(normaliseSlots(props.total_resource_slots, 'total_resource_slots'));
  if (props.allowed_vfolder_hosts !== undefined) set.allowed_vfolder_hosts = json(hostPermissions(props.allowed_vfolder_hosts, 'allowed_vfolder_hosts'));
  if (props.integration_id !== undefined) set.integration_id = props.integration_id;
  if (props.resource_policy) {
    await checkPolicyExists(app, 'project_resource_policies', props.resource_policy);
    set.resource_policy = props.resource_policy;
  }

  let members: string[] = [];
  const mode = props.user_update_mode ?? null;
  if (mode !== null && mode !== 'add' && mode !== 'remove') throw invalid('user_update_mode must be add or remove.');
  if (props.user_uuids?.length && mode === null) throw invalid('user_update_mode (add or remove) is required with user_uuids.');
  if (mode && props.user_uuids?.length) {
    members = props.user_uuids.map((u) => {
      const uuid = u ? canonicalUuid(u) : null;
      if (!uuid) throw invalid(`user_uuids: ${u} is not a UUID.`);
      return uuid;
    });
    members = [...new Set(members)];
    const domain = set.domain_name ?? group.domain_name;
    const found = await app.db.selectFrom('users').select('uuid').where('uuid', 'in', members).where('domain_name', '=', domain as string).execute();
    if (found.length !== members.length) throw invalid(`Some of user_uuids are not users of domain ${String(domain)}.`);
  }

  await app.db.transaction().execute(async (trx) => {
    await trx.updateTable('groups').set(set).where('id', '=', group.id).execute();
    if (mode === 'add' && members.length) {
      await trx
        .insertInto('association_groups_users')
        .values(members.map((user_id) => ({ group_id: group.id, user_id })))
        .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
        .execute();
    } else if (mode === 'remove' && members.length) {
      await trx.deleteFrom('association_groups_users').where('group_id', '=', group.id).where('user_id', 'in', members).execute();
    }
  });
  return { group: await loadGroup(app, group.id) };
}
