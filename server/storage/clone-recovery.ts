/**
 * Clones a manager restart interrupted (CONTRACT §9.6, statuses §5.3). A clone copies in a background task of the
 * process that started it; once that process is gone, nothing would move its folders out of `cloning` again. At
 * startup, before any request is served, every folder still `cloning` is settled as the clone would have ended
 * on failure:
 * - a clone target (created `cloning`, so its status history names no other status) → `error`, with its partial
 *   copy removed (the folder root stays, empty; removal by descriptor, never following a link);
 * - a clone source → `ready` (sources must be ready or mounted to be cloned, and nothing is mounted any more);
 * - the clone's background task → failed, so a follower of §10.2 gets a terminal `bgtask_failed`.
 *
 * One manager owns the clones of its database: Berth does not run manager replicas yet. With replicas, this must
 * settle only the clones of the replica that restarted.
 */
import { readdir } from 'node:fs/promises';
import type { App } from '../app';
import { CLONE_TASK } from './clone';
import { removeTreeAt } from './folder-operations';
import { at, withRoot } from '../host-path/folder';
import { transitionFolder } from './status';
import { folderRootPath } from './usage';

export const INTERRUPTED = 'interrupted by a manager restart; the clone was not completed';

export interface CloneRecovery {
  /** Folder ids moved to `error` (targets) and back to `ready` (sources). */
  failedTargets: string[];
  restoredSources: string[];
  failedTasks: number;
}

/** Empties a folder root, entry by entry. */
async function emptyFolder(app: App, folder: Parameters<typeof folderRootPath>[1]): Promise<void> {
  await withRoot(folderRootPath(app, folder), async (root) => {
    for (const name of await readdir(at(root.fd))) await removeTreeAt(root.fd, name, root.dev);
  });
}

export async function recoverInterruptedClones(app: App): Promise<CloneRecovery> {
  const out: CloneRecovery = { failedTargets: [], restoredSources: [], failedTasks: 0 };
  const stuck = await app.db.selectFrom('vfolders').select(['id', 'host', 'status', 'unmanaged_path', 'status_history']).where('status', '=', 'cloning').execute();
  for (const folder of stuck) {
    const isTarget = Object.keys(folder.status_history ?? {}).every((status) => status === 'cloning');
    if (!isTarget) {
      if (await transitionFolder(app, folder.id, ['cloning'], 'ready')) out.restoredSources.push(folder.id);
      continue;
    }
    try {
      await emptyFolder(app, folder);
    } catch (err) {
      app.log.warn({ err, folder: folder.id }, 'could not remove the partial copy of an interrupted clone');
    }
    if (await transitionFolder(app, folder.id, ['cloning'], 'error')) out.failedTargets.push(folder.id);
  }
  const tasks = await app.db
    .updateTable('bgtasks')
    .set({ status: 'failed', message: INTERRUPTED, finished_at: new Date() })
    .where('name', '=', CLONE_TASK)
    .where('finished_at', 'is', null)
    .executeTakeFirst();
  out.failedTasks = Number(tasks.numUpdatedRows);
  if (out.failedTargets.length || out.restoredSources.length || out.failedTasks) app.log.warn(out, 'settled clones interrupted by a restart');
  return out;
}
