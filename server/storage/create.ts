/**
 * POST /folders (CONTRACT §9.1): user folders for anyone, project folders for the project's administrators,
 * unmanaged paths for admins. Everything is checked before anything is stored; the record and the directory are
 * created together (the directory inside the transaction, removed again if the commit fails).
 *
 * `planFolder` + `materializeFolder` are also what a clone uses for its target.
 */
import { randomUUID } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { App } from '../app';
import { isAdmin, type Principal } from '../auth/principal';
import { json } from '../db';
import type { FolderPermission, VFolder } from '../db/schema';
import { Problem, badRequest } from '../http/problem';
import { parseAmount } from '../resources/slots';
import { TRASHED, administers, folderQuery, reachableBy, type Viewer } from './access';
import { allVolumes, defaultHost, folderOwnerUid, managedFolderPath, volumeOf, type StorageVolume } from './hosts';
import { grantsOf, requireHostPermission } from './host-permissions';
import { projectScope, userScope } from './ids';
import { checkFolderName, isDotName } from './names';
import { resolveProject, type ProjectRef } from './projects';
import { setScopeLimit } from './quota';
import { createdShape } from './shapes';
import { makeDirAt, withRoot } from '../host-path/folder';

export const USAGE_MODES = ['general', 'model', 'data'] as const;
export type UsageMode = (typeof USAGE_MODES)[number];

export interface CreateFolderInput {
  name: string;
  host?: string | null;
  usage_mode?: UsageMode;
  permission?: FolderPermission;
  unmanaged_path?: string | null;
  group?: string | null;
  quota?: string | number | null;
  cloneable?: boolean;
}

export interface FolderPlan {
  id: string;
  name: string;
  volume: StorageVolume;
  ownership: 'user' | 'group';
  userUuid: string | null;
  project: ProjectRef | null;
  quotaScopeId: string;
  usageMode: UsageMode;
  permission: FolderPermission;
  cloneable: boolean;
  unmanagedPath: string | null;
  creator: string;
  quotaBytes: number | null;
}

/** Host directories an unmanaged folder may never be rooted at (or under). */
const SYSTEM_DIRS = ['/proc', '/sys', '/dev', '/etc', '/boot', '/root', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/run', '/var/lib', '/var/run'];

function overlaps(a: string, b: string): boolean {
  const inside = (x: string, y: string) => x === y || x.startsWith(y.endsWith('/') ? y : `${y}/`);
  return inside(a, b) || inside(b, a);
}

function checkUnmanagedPath(app: App, value: string): string {
  const refuse = (why: string) => badRequest(`unmanaged_path: ${why}`, { unmanaged_path: why });
  if (value.includes('\0') || !path.isAbsolute(value)) throw refuse('must be an absolute path');
  let real: string;
  try {
    real = realpathSync(value);
  } catch {
    throw refuse('must be an existing directory');
  }
  if (!statSync(real).isDirectory()) throw refuse('must be an existing directory');
  if (real === '/' || SYSTEM_DIRS.some((dir) => real === dir || real.startsWith(`${dir}/`))) throw refuse('must not be a system directory');
  if (overlaps(real, realpathSync(app.settings.dataDir))) throw refuse("must not overlap Berth's data directory");
  if (allVolumes(app).some((v) => overlaps(real, v.path))) throw refuse('must not overlap a storage volume');
  return real;
}

/**
 * Whether a live folder of this name is already reachable by the viewer (the set a name lookup searches), or
 * belongs to the project.
 */
export async function nameTaken(app: App, viewer: Viewer, name: string, options: { projectId?: string | null; excludeId?: string } = {}): Promise<boolean> {
  let reachable = reachableBy(folderQuery(app, viewer.userId), viewer, { byName: true }).where('v.name', '=', name).where('v.status', 'not in', [...TRASHED]);
  if (options.excludeId) reachable = reachable.where('v.id', '!=', options.excludeId);
  if (await reachable.executeTakeFirst()) return true;
  if (!options.projectId) return false;
  let inProject = app.db.selectFrom('vfolders').select('id').where('group_id', '=', options.projectId).where('name', '=', name).where('status', 'not in', [...TRASHED]);
  if (options.excludeId) inProject = inProject.where('id', '!=', options.excludeId);
  return Boolean(await inProject.executeTakeFirst());
}

/** 400 when the owner (user or project) already has as many live folders as its resource policy allows. */
async function checkFolderCount(app: App, plan: FolderPlan): Promise<void> {
  const policy =
    plan.ownership === 'user'
      ? app.db.selectFrom('users as u').innerJoin('user_resource_policies as p', 'p.name', 'u.resource_policy').select('p.max_vfolder_count as max').where('u.uuid', '=', plan.userUuid!)
      : app.db.selectFrom('project_resource_policies as p').select('p.max_vfolder_count as max').where('p.name', '=', plan.project!.resource_policy);
  const max = (await policy.executeTakeFirst())?.max ?? 0;
  if (max <= 0) return;
  let live = app.db.selectFrom('vfolders').select((eb) => eb.fn.countAll().as('n')).where('status', 'not in', [...TRASHED]);
  live = plan.ownership === 'user' ? live.where('user_uuid', '=', plan.userUuid!).where('ownership_type', '=', 'user') : live.where('group_id', '=', plan.project!.id);
  const count = Number((await live.executeTakeFirstOrThrow()).n);
  if (count >= max) {
    const owner = plan.ownership === 'user' ? 'user' : 'project';
    throw badRequest(`The ${owner} already has ${count} folders, the most its resource policy allows (${max}).`, { name: 'too many folders' });
  }
}

function parseQuota(value: string | number | null | undefined): number | null {
  if (value === undefined || value === null || value === '') return null;
  const bytes = parseAmount(value);
  if (!Number.isFinite(bytes) || bytes < 0) throw badRequest('quota must be a size such as 10g, 512MiB or a number of bytes.', { quota: 'invalid size' });
  return Math.floor(bytes);
}

/** Checks everything about a new folder (name, host, owner, permissions, limits); stores nothing. */
export async function planFolder(app: App, caller: Principal, input: CreateFolderInput): Promise<FolderPlan> {
  const name = checkFolderName(input.name);
  const host = input.host || (await defaultHost(app));
  if (!host) throw badRequest('No host was given and no default storage host is configured.', { host: 'required' });
  const volume = volumeOf(app, host);
  const quotaBytes = parseQuota(input.quota);

  let project: ProjectRef | null = null;
  if (input.group) {
    project = await resolveProject(app, caller, input.group);
    if (!administers(caller, project.domain_name)) {
      throw new Problem('generic-forbidden', 'Only administrators of the project may create project folders.');
    }
    if (isDotName(name)) throw badRequest('Dot-prefixed names other than .local cannot be project folders.', { name: 'dot-prefixed project folder' });
  }
  let unmanagedPath: string | null = null;
  if (input.unmanaged_path) {
    if (!isAdmin(caller)) throw new Problem('insufficient-privilege', 'Only administrators may create folders on unmanaged paths.');
    unmanagedPath = checkUnmanagedPath(app, input.unmanaged_path);
  }
  const grants = await grantsOf(app, project ? { userId: caller.userId, domainName: project.domain_name, keypairPolicy: caller.keypairPolicy } : caller, project?.id);
  requireHostPermission(grants, volume.host, 'create-vfolder');

  const plan: FolderPlan = {
    id: randomUUID(),
    name,
    volume,
    ownership: project ? 'group' : 'user',
    userUuid: project ? null : caller.userId,
    project,
    quotaScopeId: project ? projectScope(project.id) : userScope(caller.userId),
    usageMode: input.usage_mode ?? 'general',
    permission: input.permission ?? 'rw',
    cloneable: input.cloneable ?? false,
    unmanagedPath,
    creator: caller.email,
    quotaBytes,
  };
  await checkFolderCount(app, plan);
  if (await nameTaken(app, caller, name, { projectId: project?.id })) {
    throw new Problem('vfolder-already-exists', `A folder named "${name}" already exists.`, { name });
  }
  return plan;
}

/** Stores the folder and creates its directory (handed to the kernel uid), both or neither. */
export async function materializeFolder(app: App, plan: FolderPlan, status = 'ready'): Promise<VFolder> {
  const now = new Date();
  const directory = plan.unmanagedPath ? null : managedFolderPath(plan.volume, plan.id);
  let created = false;
  try {
    await app.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('vfolders')
        .values({
          id: plan.id,
          name: plan.name,
          host: plan.volume.host,
          quota_scope_id: plan.quotaScopeId,
          usage_mode: plan.usageMode,
          permission: plan.permission,
          ownership_type: plan.ownership,
          user_uuid: plan.userUuid,
          group_id: plan.project?.id ?? null,
          creator: plan.creator,
          unmanaged_path: plan.unmanagedPath,
          cloneable: plan.cloneable,
          status,
          status_changed: now,
          status_history: json({ [status]: now.toISOString() }),
          created_at: now,
        })
        .execute();
      if (directory) {
        await withRoot(plan.volume.path, (volumeRoot) => makeDirAt(volumeRoot.fd, path.basename(directory), folderOwnerUid(app), 0o700));
        created = true;
      }
    });
  } catch (err) {
    if (created && directory) await rmdir(directory).catch(() => undefined);
    if (err instanceof Problem) throw err;
    const raced = await app.db.selectFrom('vfolders').select('id').where('id', '!=', plan.id).where('name', '=', plan.name)
      .where((eb) => (plan.project ? eb('group_id', '=', plan.project.id) : eb('user_uuid', '=', plan.userUuid)))
      .where('status', 'not in', [...TRASHED]).executeTakeFirst();
    if (raced) throw new Problem('vfolder-already-exists', `A folder named "${plan.name}" already exists.`, { name: plan.name });
    throw err;
  }
  if (plan.quotaBytes !== null) await setScopeLimit(app, plan.quotaScopeId, plan.quotaBytes);
  return app.db.selectFrom('vfolders').selectAll().where('id', '=', plan.id).executeTakeFirstOrThrow();
}

export async function createFolder(app: App, caller: Principal, input: CreateFolderInput): Promise<Record<string, unknown>> {
  const plan = await planFolder(app, caller, input);
  return createdShape(await materializeFolder(app, plan));
}
