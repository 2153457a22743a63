/** An admin adds a user to a domain they manage: the checks, then create-user (the one place users are created). */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { isSuperadmin } from '../auth/principal';
import { assertManagesDomain } from '../auth/privilege';
import { badRequest as invalid } from '../http/problem';
import { checkEmail, ipList } from '../admin/values';
import { loadDomain } from '../domains/values';
import { createUser } from './create-user';
import { checkRole, groupIdsIn, loadUserBy, statusFrom, type UserProps } from './managed-users';
import { checkPolicyExists } from '../resource-policies/values';

export async function addUser(app: App, principal: Principal, input: { email: string; props: UserProps & { password: string } }) {
  const props = input.props;
  const domainName = props.domain_name ?? (isSuperadmin(principal) ? 'default' : principal.domainName);
  assertManagesDomain(principal, domainName);
  const role = checkRole(principal, props.role ?? 'user');
  const email = checkEmail(input.email.trim());
  if (!props.password) throw invalid('password must not be empty.');
  const username = props.username?.trim() || email;
  if (username.length > 64) throw invalid('username must be at most 64 characters.');
  if (!(await loadDomain(app, domainName))) throw invalid(`No such domain: ${domainName}`);
  const policy = props.resource_policy ?? 'default';
  await checkPolicyExists(app, 'user_resource_policies', policy);
  const groupIds = props.group_ids ? await groupIdsIn(app, props.group_ids, domainName) : undefined;
  const created = await createUser(app.db, {
    email,
    username,
    password: props.password,
    domainName,
    role,
    status: statusFrom(props.status, props.is_active) ?? 'active',
    fullName: props.full_name ?? '',
    description: props.description ?? '',
    needPasswordChange: props.need_password_change ?? false,
    resourcePolicy: policy,
    allowedClientIp: ipList(props.allowed_client_ip),
    groupIds,
  });
  app.keypairs.invalidate();
  return { user: await loadUserBy(app, 'uuid', created.uuid) };
}
