/**
 * Who may do what with a template: one rule for reading, changing, deleting, instantiating and listing. The owner,
 * domain admins within the template's domain and superadmins manage a template; to anyone else it does not exist
 * (404, and absent from every listing; sharing a project shows nothing of a project-mate's template). Storing a
 * template places it in a domain and project the owner may use.
 */
import type { Expression, SqlBool } from 'kysely';
import type { AnyExpressionBuilder } from '../db/untyped';
import type { App } from '../app';
import { isAdmin, isSuperadmin, type Principal } from '../auth/principal';
import { Problem, badRequest } from '../http/problem';
import { toUuid } from './ids';

export interface TemplateOwnership {
  user_uuid: string;
  domain_name: string;
}

/** The rule, as data: the templates a caller manages. */
interface Managed {
  everything: boolean;
  userId: string;
  /** Every template of this domain (admins); null for none beyond the caller's own. */
  domainName: string | null;
}

function managedBy(principal: Principal): Managed {
  return { everything: isSuperadmin(principal), userId: principal.userId, domainName: isAdmin(principal) ? principal.domainName : null };
}

export function canManage(principal: Principal, template: TemplateOwnership): boolean {
  const managed = managedBy(principal);
  return managed.everything || template.user_uuid === managed.userId || template.domain_name === managed.domainName;
}

/**
 * The same rule as a condition on `session_templates as t`, for listings. Without `all`, a superadmin's listing is
 * narrowed to its own and its domain's templates, like a domain admin's; with it, every template.
 */
export function listedTemplates(eb: AnyExpressionBuilder, principal: Principal, all: boolean): Expression<SqlBool> {
  const managed = managedBy(principal);
  if (managed.everything && all) return eb.lit(true);
  const own = eb('t.user_uuid', '=', managed.userId);
  return managed.domainName === null ? own : eb.or([own, eb('t.domain_name', '=', managed.domainName)]);
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
