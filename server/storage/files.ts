/**
 * File operations inside a folder (CONTRACT §9.2–9.3): list, mkdir, move-file, rename-file, delete-files. Each
 * one checks access and status once (access.ts), then works through server/host-path/folder.ts only.
 *
 * Permissions: listing needs `ro`; mkdir, move and rename need `rw`; deleting files needs `wd`.
 */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { Problem, badRequest } from '../http/problem';
import { folderFor } from './access';
import { folderOwnerUid } from './hosts';
import { assertQuota } from './quota';
import { entryName, pathComponents, withRoot } from '../host-path/folder';
import { deleteEntries, makeDirectory, moveEntry, renameEntry } from './folder-operations';
import { listDirectory, type Listing } from './listing';
import { folderRootPath } from './usage';

export const MAX_MKDIR_PATHS = 50;
export const MAX_DELETE_PATHS = 1000;

/** The directory's entries, measured now; the route streams `listing.body()` (see ./listing). */
export async function listFiles(app: App, caller: Principal, reference: string, userPath: string): Promise<Listing> {
  const components = pathComponents(userPath, 'path');
  const { folder } = await folderFor(app, caller, reference, 'ro', 'readable');
  return withRoot(folderRootPath(app, folder), (root) => listDirectory(root, components, 'path'));
}

interface MkdirResult {
  item: string;
  msg: string | null;
}

function messageOf(err: unknown): string {
  if (err instanceof Problem) return err.detail ?? err.title;
  const code = (err as NodeJS.ErrnoException)?.code;
  return code ? `${code}: ${(err as Error).message}` : String(err);
}

/**
 * mkdir: every path is checked lexically first (a traversal attempt refuses the whole request with 400); then
 * each is created on its own and reported under `success` or `failed`.
 */
export async function makeDirectories(
  app: App,
  caller: Principal,
  reference: string,
  input: { path: string | string[]; parents: boolean; exist_ok: boolean },
): Promise<{ results: { success: MkdirResult[]; failed: MkdirResult[] } }> {
  const paths = Array.isArray(input.path) ? input.path : [input.path];
  if (!paths.length) throw badRequest('path must name at least one directory.', { path: 'empty' });
  if (paths.length > MAX_MKDIR_PATHS) throw badRequest(`At most ${MAX_MKDIR_PATHS} directories per request.`, { path: 'too many paths' });
  const components = paths.map((p) => pathComponents(p, 'path'));
  const { folder } = await folderFor(app, caller, reference, 'rw', 'updatable');
  // Directories hold no file bytes, but a scope already over its limit takes nothing new.
  await assertQuota(app, folder, 0);
  const results = { success: [] as MkdirResult[], failed: [] as MkdirResult[] };
  const uid = folderOwnerUid(app);
  await withRoot(folderRootPath(app, folder), async (root) => {
    for (let i = 0; i < paths.length; i++) {
      try {
        await makeDirectory(root, components[i], 'path', { parents: input.parents, existOk: input.exist_ok, uid });
        results.success.push({ item: paths[i], msg: null });
      } catch (err) {
        results.failed.push({ item: paths[i], msg: messageOf(err) });
      }
    }
  });
  return { results };
}

export async function moveFile(app: App, caller: Principal, reference: string, src: string, dst: string): Promise<void> {
  const from = pathComponents(src, 'src');
  const to = pathComponents(dst, 'dst');
  const { folder } = await folderFor(app, caller, reference, 'rw', 'updatable');
  await withRoot(folderRootPath(app, folder), (root) => moveEntry(root, from, to));
}

export async function renameFile(app: App, caller: Principal, reference: string, targetPath: string, newName: string): Promise<void> {
  const target = pathComponents(targetPath, 'target_path');
  const name = entryName(newName, 'new_name');
  const { folder } = await folderFor(app, caller, reference, 'rw', 'updatable');
  await withRoot(folderRootPath(app, folder), (root) => renameEntry(root, target, name));
}

export async function deleteFiles(app: App, caller: Principal, reference: string, files: string[], recursive: boolean): Promise<void> {
  if (!files.length) throw badRequest('files must name at least one path.', { files: 'empty' });
  if (files.length > MAX_DELETE_PATHS) throw badRequest(`At most ${MAX_DELETE_PATHS} paths per request.`, { files: 'too many paths' });
  const paths = files.map((f) => pathComponents(f, 'files'));
  const { folder } = await folderFor(app, caller, reference, 'wd', 'updatable');
  await withRoot(folderRootPath(app, folder), (root) => deleteEntries(root, paths, recursive));
}
