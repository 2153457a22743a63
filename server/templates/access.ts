/**
 * Who may do what with a template. The owner, domain admins within the template's domain and superadmins manage
 * (read, change, delete, instantiate) it; to anyone else it does not exist (404). Storing a template places it
 * in a domain and project the owner may use.
 */
import type { App } from '../app';
import { isAdmin, isSuperadmin, type Principal } from '../auth/principal';
import { Problem, badRequest } from '../http/problem';
import { toUuid } from './ids';

export interface TemplateOwnership {
  user_uuid: string;
  domain_name: string;
}

export function canManage(principal: Principal, template: TemplateOwnership): boolean {
  if (template.user_uuid === principal.userId) return true;
  if (isSuperadmin(principal)) return true;
  return isAdmin(principal) && principal.domainName === template.domain_name;
}

export interface Scope {
  domainName: string;
  groupId: string;
}

/** The domain and project a template of `owner` is stored in; 400 for one that is unknown or not the owner's. */
export async function resolveScope(app: App, owner: Principal, domain: string, group: string): Promise<Scope> {
  const found = await app.db.selectFrom('domains').select('name').where('name', '=', domain).where('is_active', '=', true).executeTakeFirst();
  if (!found) throw badRequest(`No such domain: ${domain}`, { domain: 'unknown domain' });
  if (!isSuperadmin(owner) && owner.domainName !== domain) throw badRequest(`The owner does not belong to domain "${domain}".`, { domain: 'not the owner\'s domain' });

  const id = toUuid(group);
  const project = await app.db
    .selectFrom('groups')
    .select(['id', 'name'])
    .where('domain_name', '=', domain)
    .where('is_active', '=', true)
    .where((eb) => (id ? eb.or([eb('id', '=', id), eb('name', '=', group)]) : eb('name', '=', group)))
    .executeTakeFirst();
  if (!project) throw badRequest(`No such project in domain "${domain}": ${group}`, { group: 'unknown project' });
  if (isSuperadmin(owner) || (isAdmin(owner) && owner.domainName === domain)) return { domainName: domain, groupId: project.id };
  const member = await app.db.selectFrom('association_groups_users').select('group_id').where('group_id', '=', project.id).where('user_id', '=', owner.userId).executeTakeFirst();
  if (!member) throw badRequest(`The owner is not a member of project "${project.name}".`, { group: 'not a member' });
  return { domainName: domain, groupId: project.id };
}

/**
 * A document may name another owner (`user_uuid`): allowed for the caller's own account, and for admins over the
 * users they may act for (CONTRACT §2.4).
 */
export async function checkOwnerOverride(app: App, caller: Principal, userUuid: string, field: string): Promise<void> {
  if (userUuid === caller.userId) return;
  const user = await app.db.selectFrom('users').select(['uuid', 'domain_name', 'role']).where('uuid', '=', userUuid).executeTakeFirst();
  if (!user) throw badRequest(`No such user: ${userUuid}`, { [field]: 'unknown user' });
  if (isSuperadmin(caller)) return;
  if (isAdmin(caller) && user.domain_name === caller.domainName && user.role !== 'superadmin') return;
  throw new Problem('generic-forbidden', 'Only administrators may store templates for another user.');
}
