/** An admin changes a user they manage: profile, password, status, role (their keypairs' admin flag follows), domain (superadmins; the old domain's projects are left), resource policy, main access key, projects. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { isSuperadmin } from '../auth/principal';
import { outsideDomain } from '../auth/privilege';
import { hashPassword } from '../auth/passwords';
import type { Updateable } from 'kysely';
import type { UserTable } from '../db/schema';
import { json } from '../db';
import { badRequest as invalid } from '../http/problem';
import { given, ipList } from '../admin/values';
import { loadDomain } from '../domains/values';
import { checkRole, groupIdsIn, loadUserBy, managedUser, statusFrom, type UserProps } from './managed-users';
import { checkPolicyExists } from '../resource-policies/values';

export async function modifyUser(app: App, principal: Principal, input: { email: string; props: UserProps }) {
  const user = await managedUser(app, principal, input.email);
  const props = given(input.props);
  const set: Updateable<UserTable> = { modified_at: new Date() };
  if (props.username) {
    const username = props.username.trim();
    if (!username || username.length > 64) throw invalid('username must be 1 to 64 characters.');
    set.username = username;
  }
  if (props.password) {
    set.password = await hashPassword(props.password);
    set.password_changed_at = new Date();
  }
  if (props.need_password_change !== undefined && props.need_password_change !== null) set.need_password_change = props.need_password_change;
  if (props.full_name !== undefined) set.full_name = props.full_name ?? '';
  if (props.description !== undefined) set.description = props.description ?? '';
  const status = statusFrom(props.status, props.is_active);
  if (status) set.status = status;
  const role = props.role ? checkRole(principal, props.role) : undefined;
  if (role) set.role = role;
  let domain = user.domain_name;
  if (props.domain_name && props.domain_name !== user.domain_name) {
    if (!isSuperadmin(principal)) throw outsideDomain();
    if (!(await loadDomain(app, props.domain_name))) throw invalid(`No such domain: ${props.domain_name}`);
    domain = set.domain_name = props.domain_name;
  }
  if (props.resource_policy) {
    await checkPolicyExists(app, 'user_resource_policies', props.resource_policy);
    set.resource_policy = props.resource_policy;
  }
  if (props.allowed_client_ip !== undefined) set.allowed_client_ip = json(ipList(props.allowed_client_ip));
  if (props.main_access_key) {
    const owned = await app.db.selectFrom('keypairs').select('access_key').where('access_key', '=', props.main_access_key).where('user_id', '=', user.uuid).executeTakeFirst();
    if (!owned) throw invalid('main_access_key must be one of the user’s own access keys.');
    set.main_access_key = props.main_access_key;
  }
  const groupIds = props.group_ids ? await groupIdsIn(app, props.group_ids, domain) : undefined;

  await app.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set(set).where('uuid', '=', user.uuid).execute();
    if (role && role !== user.role) {
      await trx.updateTable('keypairs').set({ is_admin: role === 'admin' || role === 'superadmin', modified_at: new Date() }).where('user_id', '=', user.uuid).execute();
    }
    if (groupIds) {
      await trx.deleteFrom('association_groups_users').where('user_id', '=', user.uuid).execute();
      if (groupIds.length) await trx.insertInto('association_groups_users').values(groupIds.map((group_id) => ({ group_id, user_id: user.uuid }))).execute();
    } else if (domain !== user.domain_name) {
      // Projects belong to a domain: a user moved elsewhere leaves the old domain's projects.
      await trx
        .deleteFrom('association_groups_users')
        .where('user_id', '=', user.uuid)
        .where('group_id', 'in', (eb) => eb.selectFrom('groups').select('id').where('domain_name', '<>', domain))
        .execute();
    }
  });
  app.keypairs.invalidate();
  return { user: await loadUserBy(app, 'uuid', user.uuid) };
}
