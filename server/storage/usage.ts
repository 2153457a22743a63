/**
 * Where a folder's files are, and how much they hold. Usage is measured from the files themselves (a walk that
 * never follows symlinks nor leaves the file system); the last figures are kept in `vfolders.num_files` and
 * `cur_size` for listings.
 */
import type { App } from '../app';
import type { VFolder } from '../db/schema';
import { Problem } from '../http/problem';
import { TRASHED } from './access';
import { findVolume, managedFolderPath, trashedFolderPath } from './hosts';
import { measureTree, type TreeUsage } from './folder-operations';

/** The folder's root directory: its unmanaged path, its directory on the volume, or that directory in the trash. */
export function folderRootPath(app: App, folder: Pick<VFolder, 'id' | 'host' | 'status' | 'unmanaged_path'>): string {
  if (folder.unmanaged_path) return folder.unmanaged_path;
  const volume = findVolume(app, folder.host);
  if (!volume) throw new Problem('vfolder-operation-failed', `The folder's storage host ${folder.host} is not configured.`);
  return TRASHED.includes(folder.status) ? trashedFolderPath(volume, folder.id) : managedFolderPath(volume, folder.id);
}

/** Measures a folder now and remembers the figures for listings. */
export async function folderUsage(app: App, folder: Pick<VFolder, 'id' | 'host' | 'status' | 'unmanaged_path'>): Promise<TreeUsage> {
  const usage = await measureTree(folderRootPath(app, folder));
  await app.db
    .updateTable('vfolders')
    .set({ num_files: usage.fileCount, cur_size: usage.usedBytes })
    .where('id', '=', folder.id)
    .execute()
    .catch((err) => app.log.warn({ err, folder: folder.id }, 'could not store folder usage'));
  return usage;
}
