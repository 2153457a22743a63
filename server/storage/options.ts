/** POST /folders/{name}/rename and /update-options (CONTRACT §9.3): for whoever manages the folder. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import type { FolderPermission } from '../db/schema';
import { Problem } from '../http/problem';
import { findFolder, requireManager, requireStatus } from './access';
import { nameTaken } from './create';
import { requireFolderHostPermission } from './host-permissions';
import { checkFolderName, isDotName } from './names';

export async function renameFolder(app: App, caller: Principal, reference: string, newName: string): Promise<void> {
  const name = checkFolderName(newName, 'new_name');
  const access = await findFolder(app, caller, reference);
  requireManager(access);
  requireStatus(access.folder, 'updatable');
  await requireFolderHostPermission(app, caller, access.folder, 'modify-vfolder');
  const folder = access.folder;
  if (name === folder.name) return;
  if (folder.ownership_type === 'group' && isDotName(name)) throw new Problem('invalid-api-params', 'Dot-prefixed names other than .local cannot be project folders.', { new_name: 'dot-prefixed project folder' });
  // The name must stay unique for its owner (the owning user, or the project) and for the caller.
  const owner = folder.user_uuid
    ? { userId: folder.user_uuid, domainName: folder.domain_name, role: (folder.owner_role ?? 'user') as Principal['role'], isAdmin: folder.owner_role === 'admin' || folder.owner_role === 'superadmin' }
    : null;
  const taken =
    (owner && (await nameTaken(app, owner, name, { excludeId: folder.id }))) ||
    (await nameTaken(app, caller, name, { projectId: folder.group_id, excludeId: folder.id }));
  if (taken) throw new Problem('vfolder-already-exists', `A folder named "${name}" already exists.`, { new_name: name });
  await app.db.updateTable('vfolders').set({ name }).where('id', '=', folder.id).execute();
}

export async function updateFolderOptions(app: App, caller: Principal, reference: string, options: { cloneable?: boolean | null; permission?: FolderPermission | null }): Promise<void> {
  const access = await findFolder(app, caller, reference);
  requireManager(access);
  requireStatus(access.folder, 'updatable');
  await requireFolderHostPermission(app, caller, access.folder, 'modify-vfolder');
  const set: { cloneable?: boolean; permission?: FolderPermission } = {};
  if (options.cloneable !== undefined && options.cloneable !== null) set.cloneable = options.cloneable;
  if (options.permission) set.permission = options.permission;
  if (Object.keys(set).length) await app.db.updateTable('vfolders').set(set).where('id', '=', access.folder.id).execute();
}
