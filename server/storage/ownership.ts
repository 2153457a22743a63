/**
 * POST /folders/_/change-ownership (superadmin, CONTRACT §9.6): a user folder moves to another user, with its
 * quota scope. Refused before anything changes when the folder is a project folder, the new owner may not use
 * the folder's host, already has a folder of that name, or has no room for it in their quota scope (412).
 */
import { sql } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { Problem, badRequest, notFound } from '../http/problem';
import { folderById, requireStatus } from './access';
import { nameTaken } from './create';
import { grantsOf, permissionsOn } from './host-permissions';
import { userScope } from './ids';
import { withQuota } from './quota';
import { folderUsage } from './usage';

export async function changeOwnership(app: App, caller: Principal, folderId: string, email: string): Promise<void> {
  const access = await folderById(app, caller, folderId);
  if (!access) throw notFound('No such virtual folder.', `No virtual folder with id ${folderId}.`);
  const folder = access.folder;
  if (folder.ownership_type !== 'user') throw badRequest('Only user-owned folders can change owner.', { vfolder: 'a project folder' });
  requireStatus(folder, 'updatable');
  const user = await app.db
    .selectFrom('users as u')
    .leftJoin('keypairs as k', 'k.access_key', 'u.main_access_key')
    .select(['u.uuid', 'u.domain_name', 'u.role', 'u.status', 'k.is_admin', 'k.resource_policy'])
    .where('u.email', '=', email)
    .executeTakeFirst();
  if (!user || user.status === 'deleted') throw badRequest(`No user with the email ${email}.`, { user_email: 'unknown user' });
  if (user.uuid === folder.user_uuid) return;

  const grants = await grantsOf(app, { userId: user.uuid, domainName: user.domain_name, keypairPolicy: user.resource_policy ?? 'default' });
  if (permissionsOn(grants, folder.host).size === 0) throw badRequest(`${email} may not use the storage host ${folder.host}.`, { user_email: 'host not allowed' });
  const viewer = { userId: user.uuid, domainName: user.domain_name, role: user.role as Principal['role'], isAdmin: Boolean(user.is_admin) };
  if (await nameTaken(app, viewer, folder.name, { excludeId: folder.id })) {
    throw new Problem('vfolder-already-exists', `${email} already has a folder named "${folder.name}".`, { user_email: email });
  }
  const scope = userScope(user.uuid);
  const { usedBytes } = await folderUsage(app, folder);
  await withQuota(app, { quota_scope_id: scope }, usedBytes, async () => {
    await app.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('vfolders')
        .set({ user_uuid: user.uuid, quota_scope_id: scope })
        .where('id', '=', folder.id)
        .where('user_uuid', '=', folder.user_uuid)
        .where(sql<boolean>`status in ('ready', 'mounted')`)
        .executeTakeFirst();
      if (!Number(moved.numUpdatedRows)) throw new Problem('vfolder-filter-status-failed', 'The folder changed while its owner was being changed.');
      // The new owner holds it outright now: no share entry of theirs remains.
      await trx.deleteFrom('vfolder_permissions').where('vfolder_id', '=', folder.id).where('user_uuid', '=', user.uuid).execute();
    });
  });
}
