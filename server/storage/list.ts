/** GET /folders and GET /folders/{name} (CONTRACT §9.2). */
import type { App } from '../app';
import { isSuperadmin, type Principal } from '../auth/principal';
import { Problem, badRequest } from '../http/problem';
import { accessOf, findFolder, folderQuery, notGone, reachableBy, requireStatus, type AccessRoute, type FolderAccess, type FolderQuery, type Viewer } from './access';
import { resolveProject } from './projects';
import { infoShape, listShape } from './shapes';
import { folderUsage } from './usage';

export interface ListInput {
  all?: boolean;
  group_id?: string | null;
  owner_user_email?: string | null;
}

/** The user a superadmin lists as with `owner_user_email`, seen as that user would see. */
async function viewerByEmail(app: App, email: string): Promise<Viewer> {
  const user = await app.db
    .selectFrom('users as u')
    .leftJoin('keypairs as k', 'k.access_key', 'u.main_access_key')
    .select(['u.uuid', 'u.domain_name', 'u.role', 'k.is_admin'])
    .where('u.email', '=', email)
    .executeTakeFirst();
  if (!user) throw badRequest(`No user with the email ${email}.`, { owner_user_email: 'unknown user' });
  return { userId: user.uuid, domainName: user.domain_name, role: user.role as Viewer['role'], isAdmin: Boolean(user.is_admin) };
}

export interface ListOptions {
  /** Narrows and orders the query further (GraphQL's filter and order); the access check still decides every row. */
  refine?: (query: FolderQuery) => FolderQuery;
  /** Only folders reached this way (GraphQL's vfolder_invited_list: shared with the caller). */
  via?: AccessRoute;
}

/** The folders the caller reaches, oldest first: the rule of ./access, so a folder listed is one a read by id finds. */
export async function listFolders(app: App, caller: Principal, input: ListInput, options: ListOptions = {}): Promise<Record<string, unknown>[]> {
  if (input.all) throw new Problem('deprecated', 'all=true is deprecated; list folders without it (superadmins may pass owner_user_email).');
  let viewer: Viewer = caller;
  if (input.owner_user_email && input.owner_user_email !== caller.email) {
    if (!isSuperadmin(caller)) throw new Problem('insufficient-privilege', 'Only superadmins may list the folders of another user.');
    viewer = await viewerByEmail(app, input.owner_user_email);
  }
  let query = notGone(reachableBy(folderQuery(app, viewer.userId), viewer));
  if (input.group_id) {
    const project = await resolveProject(app, viewer, input.group_id, 'group_id');
    // User folders are listed whatever the project; project folders only of that project.
    query = query.where((eb) => eb.or([eb('v.ownership_type', '=', 'user'), eb('v.group_id', '=', project.id)]));
  }
  if (options.refine) query = options.refine(query);
  const rows = await query.orderBy('v.created_at').orderBy('v.id').execute();
  return rows
    .map((row) => accessOf(viewer, row))
    .filter((a): a is FolderAccess => a !== null && (!options.via || a.via === options.via))
    .map(listShape);
}

export async function folderInfo(app: App, caller: Principal, reference: string): Promise<Record<string, unknown>> {
  const access = await findFolder(app, caller, reference);
  requireStatus(access.folder, 'readable');
  return infoShape(access, await folderUsage(app, access.folder));
}
