/**
 * Who may do what with a template: one rule for reading, changing, deleting, instantiating and listing, written once
 * and used in two forms: `canManage` checks one template (a read by id, a write), `managedTemplates` narrows a query
 * of `session_templates as t` (lists), so a list never shows what a read refuses. The owner, domain admins within the
 * template's domain and superadmins manage a template; to anyone else it does not exist (404, and absent from every
 * listing; sharing a project shows nothing of a project-mate's template). Storing a template places it in a domain
 * and project the owner may use.
 */
import type { App } from '../app';
import { isAdmin, isSuperadmin, type Principal } from '../auth/principal';
import { ownerReach, reachable, reaches } from '../auth/reach';
import type { AnyExpressionBuilder, AnySelect } from '../db/untyped';
import { Problem, badRequest } from '../http/problem';
import { toUuid } from './ids';
import { isProjectMember } from '../projects/membership';

export interface TemplateOwnership {
  user_uuid: string;
  domain_name: string;
}

/** Whether `principal` manages this template (reads, writes, instantiation). */
export function canManage(principal: Principal, template: TemplateOwnership): boolean {
  return reaches(ownerReach(principal, 'userId'), { owner: template.user_uuid, domain: template.domain_name });
}

/** The same rule as a condition on a query over `session_templates as t` (lists). */
export function managedTemplates<Q extends AnySelect>(principal: Principal, query: Q): Q {
  return reachable(ownerReach(principal, 'userId'), query, { owner: 't.user_uuid', domain: 't.domain_name' });
}

/**
 * Without `all`, a listing keeps to the caller's own templates and their domain's (Backend.AI's default listing; `all`
 * is the superadmin's switch to every template). A filter like `group_id`, not an access rule: for everyone but a
 * superadmin it narrows nothing the rule has not already.
 */
export function withinOwnDomain<Q extends AnySelect>(principal: Principal, query: Q): Q {
  return query.where((eb: AnyExpressionBuilder) => eb.or([eb('t.user_uuid', '=', principal.userId), eb('t.domain_name', '=', principal.domainName)])) as Q;
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
  if (!(await isProjectMember(app, { userId: owner.userId, projectId: project.id }))) throw badRequest(`The owner is not a member of project "${project.name}".`, { group: 'not a member' });
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
