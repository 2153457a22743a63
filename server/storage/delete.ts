/**
 * Deleting folders, in two steps, so no byte is destroyed by one request:
 *
 * 1. `DELETE /folders/{name}` (the owner, or an administrator of the folder) and `DELETE /folders?id` on a
 *    `ready` folder (superadmin) move the folder's directory into `<volume>/.trash/<hex id>` (a rename on the same
 *    file system) and set its status to `delete-pending`. Its name is free again; it still lists, with that status.
 *    A folder mounted in a live session cannot be deleted (400 vfolder-operation-failed).
 * 2. Purge: `DELETE /folders?id` by a superadmin on a folder that is already `delete-pending` (the purgeable set)
 *    removes the trashed directory (status `delete-ongoing`, then the record goes; `delete-error` if removal
 *    fails). Folders on unmanaged paths are never removed from disk: only their record goes.
 */
import { rename } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { json } from '../db';
import { Problem, notFound } from '../http/problem';
import { LIVE } from '../sessions/states';
import { STATUS_SETS, folderById, requireManager, requireStatus, type FolderAccess } from './access';
import { findVolume, managedFolderPath, trashedFolderPath, TRASH_DIR } from './hosts';
import { requireFolderHostPermission } from './host-permissions';
import { transitionFolder } from './status';
import { problemOf, withRoot } from '../host-path/folder';
import { removeTreeAt } from './folder-operations';
import { toHex32 } from './ids';

/** Names of live sessions that mount the folder. */
export async function sessionsMounting(app: App, folderId: string): Promise<string[]> {
  const rows = await app.db
    .selectFrom('sessions')
    .select('name')
    .where('status', 'in', [...LIVE])
    .where(sql<boolean>`mounts @> ${json([{ id: folderId }])}::jsonb`)
    .execute();
  return rows.map((r) => r.name);
}

/** Step 1: to the trash, status delete-pending. */
export async function deleteFolder(app: App, caller: Principal, access: FolderAccess): Promise<void> {
  const folder = access.folder;
  requireManager(access);
  requireStatus(folder, 'deletable');
  await requireFolderHostPermission(app, caller, folder, 'delete-vfolder');
  const mounting = await sessionsMounting(app, folder.id);
  if (mounting.length) {
    throw new Problem('vfolder-operation-failed', `The folder is mounted in live sessions (${mounting.join(', ')}); destroy them first.`, { sessions: mounting });
  }
  const volume = folder.unmanaged_path ? null : findVolume(app, folder.host);
  if (!folder.unmanaged_path && !volume) throw new Problem('vfolder-operation-failed', `The folder's storage host ${folder.host} is not configured.`);
  if (volume) {
    try {
      await rename(managedFolderPath(volume, folder.id), trashedFolderPath(volume, folder.id));
    } catch (err) {
      throw problemOf(err);
    }
  }
  if (!(await transitionFolder(app, folder.id, STATUS_SETS.deletable, 'delete-pending'))) {
    if (volume) await rename(trashedFolderPath(volume, folder.id), managedFolderPath(volume, folder.id));
    throw new Problem('vfolder-filter-status-failed', 'The folder changed status while it was being deleted.');
  }
}

/** Step 2: removes a trashed folder's files and its record. */
export async function purgeFolder(app: App, access: FolderAccess): Promise<void> {
  const folder = access.folder;
  requireStatus(folder, 'purgeable');
  if (!(await transitionFolder(app, folder.id, STATUS_SETS.purgeable, 'delete-ongoing'))) {
    throw new Problem('vfolder-filter-status-failed', 'The folder changed status while it was being purged.');
  }
  try {
    const volume = folder.unmanaged_path ? null : findVolume(app, folder.host);
    if (!folder.unmanaged_path) {
      if (!volume) throw new Problem('vfolder-operation-failed', `The folder's storage host ${folder.host} is not configured.`);
      await withRoot(path.join(volume.path, TRASH_DIR), (trash) => removeTreeAt(trash.fd, toHex32(folder.id), trash.dev));
    }
    await app.db.deleteFrom('vfolders').where('id', '=', folder.id).execute();
  } catch (err) {
    await transitionFolder(app, folder.id, ['delete-ongoing'], 'delete-error');
    throw problemOf(err);
  }
}

/** DELETE /folders?id (superadmin): a ready folder goes to the trash; a trashed one is purged. */
export async function deleteFolderById(app: App, caller: Principal, id: string): Promise<void> {
  const access = await folderById(app, caller, id);
  if (!access) throw notFound('No such virtual folder.', `No virtual folder with id ${id}.`);
  if ((STATUS_SETS.purgeable as readonly string[]).includes(access.folder.status)) return purgeFolder(app, access);
  return deleteFolder(app, caller, access);
}
