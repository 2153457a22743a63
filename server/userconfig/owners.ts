/**
 * Whose dotfiles a request names, and whether the caller may read or change them.
 *
 * - User scope: the caller's own, or another keypair's through `owner_access_key` (CONTRACT §2.4).
 * - Domain scope: members of a domain read its dotfiles; its domain admins change them; superadmins do both for
 *   any domain.
 * - Project scope: members of a project read its dotfiles; the domain admins of its domain read and change them;
 *   superadmins do both for any project.
 *
 * A domain or project the caller may not read answers 404, exactly like one that does not exist. An admin who
 * names another domain for a change gets 403 `generic-forbidden`; that refusal is decided from the request alone,
 * before anything is looked up, so it reveals nothing about the domain.
 */
import type { App } from '../app';
import { actingAs } from '../auth/delegation';
import { isAdmin, isSuperadmin, type Principal } from '../auth/principal';
import { forbidden, notFound } from '../http/problem';
import type { DotfileOwner } from './dotfiles';
import { isProjectMember } from '../projects/membership';

export type Access = 'read' | 'write';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

const noSuchDomain = (name: string) => notFound('No such domain.', `No such domain: ${name}`);
const noSuchProject = (ref: string) => notFound('No such project.', `No such project: ${ref}`);

/** The user whose dotfiles and bootstrap script a user-config request acts on. */
export async function userOwner(app: App, caller: Principal, ownerAccessKey: string | null | undefined): Promise<DotfileOwner> {
  const owner = await actingAs(app, caller, ownerAccessKey);
  return { kind: 'user', id: owner.userId };
}

export async function domainOwner(app: App, caller: Principal, domain: string, access: Access): Promise<DotfileOwner> {
  if (!isSuperadmin(caller) && domain !== caller.domainName) {
    if (access === 'write') throw forbidden("Domain administrators may change only their own domain's dotfiles.");
    throw noSuchDomain(domain);
  }
  const row = await app.db.selectFrom('domains').select('name').where('name', '=', domain).executeTakeFirst();
  if (!row) throw noSuchDomain(domain);
  return { kind: 'domain', id: row.name };
}

/** `group` is a project id, or a project name in `domain` (the caller's own domain when `domain` is omitted). */
export async function groupOwner(app: App, caller: Principal, group: string, domain: string | null | undefined, access: Access): Promise<DotfileOwner> {
  if (access === 'write' && domain && !isSuperadmin(caller) && domain !== caller.domainName) {
    throw forbidden("Domain administrators may change only the dotfiles of their own domain's projects.");
  }
  let query = app.db.selectFrom('groups').select(['id', 'domain_name']);
  query = UUID.test(group) ? query.where('id', '=', group) : query.where('name', '=', group).where('domain_name', '=', domain || caller.domainName);
  if (domain) query = query.where('domain_name', '=', domain);
  const project = await query.executeTakeFirst();
  if (!project || !(await mayAccessProject(app, caller, project, access))) throw noSuchProject(group);
  return { kind: 'group', id: project.id };
}

async function mayAccessProject(app: App, caller: Principal, project: { id: string; domain_name: string }, access: Access): Promise<boolean> {
  if (isSuperadmin(caller)) return true;
  if (project.domain_name !== caller.domainName) return false;
  if (isAdmin(caller)) return true;
  if (access === 'write') return false;
  return isProjectMember(app, { userId: caller.userId, projectId: project.id });
}
