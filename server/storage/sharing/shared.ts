/**
 * Shared folders (CONTRACT §9.5): the `vfolder_permissions` rows that give a user a permission on a folder that is
 * not theirs. They come from accepted invitations (user folders) or from `share` (project folders, by whoever
 * manages the folder: a superadmin or an admin of the project's domain). The access check (../access.ts) reads
 * them, so every file operation, transfer and session mount honours them.
 *
 * - share / unshare: project folders only; the users must be members of the folder's project.
 * - list shared: the rows of the folders the caller manages (owners see whom they share with; admins see their
 *   domain's), optionally of one folder.
 * - update shared permission: whoever manages the folder; `perm: null` revokes.
 * - leave: a user drops a folder shared with them; with `shared_user_uuid`, whoever manages the folder removes
 *   that user instead.
 */
import type { App } from '../../app';
import type { Principal } from '../../auth/principal';
import type { FolderPermission } from '../../db/schema';
import { Problem, badRequest, notFound } from '../../http/problem';
import { accessOf, findFolder, folderById, folderQuery, requireManager, type FolderAccess } from '../access';
import { toHex32, toUuid } from '../ids';

function requireProjectFolder(access: FolderAccess): void {
  if (access.folder.ownership_type !== 'group') {
    throw badRequest('Only project folders are shared this way; invite users to a user folder with POST /folders/{name}/invite.', { name: 'not a project folder' });
  }
}

async function projectMembers(app: App, access: FolderAccess, emails: string[]) {
  const wanted = [...new Set(emails.map((e) => e.trim()).filter(Boolean))];
  if (!wanted.length) throw badRequest('emails must name at least one user.', { emails: 'empty' });
  const users = await app.db
    .selectFrom('users as u')
    .innerJoin('association_groups_users as m', 'm.user_id', 'u.uuid')
    .select(['u.uuid', 'u.email'])
    .where('m.group_id', '=', access.folder.group_id!)
    .where('u.email', 'in', wanted)
    .where('u.status', '!=', 'deleted')
    .execute();
  const missing = wanted.filter((e) => !users.some((u) => u.email === e));
  if (missing.length) {
    throw new Problem('object-not-found', `No such user in the folder's project: ${missing.join(', ')}.`, { missing }, { title: 'No such user.' });
  }
  return users;
}

/** POST /folders/{name}/share {permission, emails} → `{"shared_emails": [...]}`. */
export async function shareFolder(app: App, caller: Principal, name: string, permission: FolderPermission, emails: string[]): Promise<{ shared_emails: string[] }> {
  const access = await findFolder(app, caller, name);
  requireManager(access);
  requireProjectFolder(access);
  const users = await projectMembers(app, access, emails);
  const now = new Date();
  await app.db.transaction().execute(async (trx) => {
    for (const user of users) {
      await trx
        .insertInto('vfolder_permissions')
        .values({ vfolder_id: access.folder.id, user_uuid: user.uuid, permission, created_at: now })
        .onConflict((oc) => oc.columns(['vfolder_id', 'user_uuid']).doUpdateSet({ permission }))
        .execute();
    }
  });
  return { shared_emails: users.map((u) => u.email) };
}

/** POST|DELETE /folders/{name}/unshare {emails} → `{"unshared_emails": [...]}`. */
export async function unshareFolder(app: App, caller: Principal, name: string, emails: string[]): Promise<{ unshared_emails: string[] }> {
  const access = await findFolder(app, caller, name);
  requireManager(access);
  requireProjectFolder(access);
  const wanted = [...new Set(emails.map((e) => e.trim()).filter(Boolean))];
  if (!wanted.length) throw badRequest('emails must name at least one user.', { emails: 'empty' });
  const users = await app.db.selectFrom('users').select(['uuid', 'email']).where('email', 'in', wanted).execute();
  const missing = wanted.filter((e) => !users.some((u) => u.email === e));
  if (missing.length) throw new Problem('object-not-found', `No such user: ${missing.join(', ')}.`, { missing }, { title: 'No such user.' });
  if (users.length) {
    await app.db.deleteFrom('vfolder_permissions').where('vfolder_id', '=', access.folder.id).where('user_uuid', 'in', users.map((u) => u.uuid)).execute();
  }
  return { unshared_emails: users.map((u) => u.email) };
}

export interface SharedEntry {
  vfolder_id: string;
  vfolder_name: string;
  status: string;
  owner: string;
  type: 'user' | 'project';
  shared_to: { uuid: string; email: string };
  perm: FolderPermission;
}

/** GET /folders/_/shared?vfolder_id → `{"shared": [...]}` over the folders the caller manages. */
export async function listShared(app: App, caller: Principal, vfolderId: string | null | undefined): Promise<{ shared: SharedEntry[] }> {
  let folderIds: string[] | null = null;
  if (vfolderId) {
    const access = await folderById(app, caller, vfolderId);
    if (!access) throw notFound('No such virtual folder.');
    requireManager(access);
    folderIds = [access.folder.id];
  }
  let rows = app.db
    .selectFrom('vfolder_permissions as s')
    .innerJoin('users as t', 't.uuid', 's.user_uuid')
    .select(['s.vfolder_id', 's.user_uuid', 's.permission', 't.email as shared_email'])
    .orderBy('s.created_at');
  if (folderIds) rows = rows.where('s.vfolder_id', 'in', folderIds);
  const shares = await rows.execute();
  if (!shares.length) return { shared: [] };
  const folders = await folderQuery(app, caller.userId).where('v.id', 'in', [...new Set(shares.map((s) => s.vfolder_id))]).execute();
  const managed = new Map(folders.map((f) => [f.id, accessOf(caller, f)] as const).filter(([, a]) => a?.manages));
  const shared: SharedEntry[] = [];
  for (const share of shares) {
    const access = managed.get(share.vfolder_id);
    if (!access) continue;
    const f = access.folder;
    shared.push({
      vfolder_id: toHex32(f.id),
      vfolder_name: f.name,
      status: f.status,
      owner: (f.ownership_type === 'user' ? f.user_uuid : f.group_id)!,
      type: f.ownership_type === 'user' ? 'user' : 'project',
      shared_to: { uuid: share.user_uuid, email: share.shared_email },
      perm: share.permission,
    });
  }
  return { shared };
}

/** POST /folders/_/shared {vfolder, user, perm|null}: change or (null) revoke one user's permission. */
export async function updateSharedPermission(app: App, caller: Principal, vfolder: string, user: string, perm: FolderPermission | null): Promise<{ msg: string }> {
  const access = await folderById(app, caller, vfolder);
  if (!access) throw notFound('No such virtual folder.');
  requireManager(access);
  const userId = toUuid(user);
  if (!userId) throw badRequest('user: must be a user uuid', { user: 'must be a UUID' });
  if (perm === null) {
    const removed = await app.db.deleteFrom('vfolder_permissions').where('vfolder_id', '=', access.folder.id).where('user_uuid', '=', userId).executeTakeFirst();
    if (!Number(removed.numDeletedRows)) throw notFound('No such shared folder permission.', 'The folder is not shared with this user.');
  } else {
    const updated = await app.db.updateTable('vfolder_permissions').set({ permission: perm }).where('vfolder_id', '=', access.folder.id).where('user_uuid', '=', userId).executeTakeFirst();
    if (!Number(updated.numUpdatedRows)) throw notFound('No such shared folder permission.', 'The folder is not shared with this user.');
  }
  return { msg: 'shared vfolder permission updated' };
}

/** POST /folders/{name}/leave {shared_user_uuid?}. */
export async function leaveFolder(app: App, caller: Principal, name: string, sharedUserUuid: string | null | undefined): Promise<{ msg: string }> {
  const access = await findFolder(app, caller, name);
  if (access.folder.ownership_type === 'group') throw badRequest('Project folders cannot be left; they are shared through the project.', { name: 'project folder' });
  let userId = caller.userId;
  if (sharedUserUuid && toUuid(sharedUserUuid) !== caller.userId) {
    const target = toUuid(sharedUserUuid);
    if (!target) throw badRequest('shared_user_uuid: must be a user uuid', { shared_user_uuid: 'must be a UUID' });
    requireManager(access);
    userId = target;
  } else if (access.via === 'owner') {
    throw badRequest('You own this folder; delete it instead of leaving it.', { name: 'owned folder' });
  }
  const removed = await app.db.deleteFrom('vfolder_permissions').where('vfolder_id', '=', access.folder.id).where('user_uuid', '=', userId).executeTakeFirst();
  if (!Number(removed.numDeletedRows)) throw badRequest('The folder is not shared with this user.', { name: 'not shared' });
  return { msg: 'left the shared vfolder' };
}
