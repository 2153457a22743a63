/**
 * Folders mounted into sessions (CONTRACT §7.1 `config.mounts`, `mount_map`, `mount_options`).
 *
 * `resolveSessionMounts` runs while a create request is validated, before anything is stored: every named folder
 * (name or id, as the session's owner reaches it) must exist (400 invalid-api-params), be in the mountable set
 * (400 vfolder-filter-status-failed), be on a host where the owner holds `mount-in-session`, and be asked for no
 * more than the owner's permission (400 vfolder-permission-error). The mount permission defaults to the owner's
 * access: for the folder's owner, the folder's own `permission` (so an owner who made a folder `ro` gets it
 * read-only unless they ask otherwise); `mount_options.<folder>.permission` (or `perm`) lowers or raises it within
 * that access. A writable mount of a folder whose quota scope is already over its limit is refused (412).
 * Kernel paths default to /home/work/<folder name>; a `mount_map` path must lie below /home/work, and no two
 * mounts may share or nest their paths.
 *
 * `kernelMountsFor` turns the stored list into the agent's bind mounts when a kernel starts: read-only for `ro`.
 */
import path from 'node:path';
import type { App } from '../app';
import type { KernelMount } from '../agents/agent';
import type { Principal } from '../auth/principal';
import type { FolderPermission, Session, SessionMount } from '../db/schema';
import { Problem, badRequest } from '../http/problem';
import { PERMISSIONS, STATUS_SETS, findFolder, permits, requireStatus, type FolderAccess } from './access';
import { grantsOf, permissionsOn } from './host-permissions';
import { toHex32 } from './ids';
import { isInside } from './mountinfo';
import { assertQuota } from './quota';
import { folderRootPath } from './usage';

export const KERNEL_HOME = '/home/work';

export interface MountRequest {
  mounts?: string[];
  mount_map?: Record<string, string>;
  mount_options?: Record<string, unknown>;
}

function kernelPathOf(raw: string, folder: string): string {
  const field = `mount_map.${folder}`;
  if (typeof raw !== 'string' || raw.includes('\0') || raw.trim() === '') throw badRequest(`${field} must be a path under ${KERNEL_HOME}.`, { [field]: 'invalid path' });
  if (raw.split('/').includes('..')) throw badRequest(`${field} must not contain "..".`, { [field]: 'must not contain ..' });
  const absolute = path.posix.normalize(raw.startsWith('/') ? raw : `${KERNEL_HOME}/${raw}`).replace(/\/+$/, '');
  if (!absolute.startsWith(`${KERNEL_HOME}/`)) throw badRequest(`${field} must be a path under ${KERNEL_HOME}.`, { [field]: `must be under ${KERNEL_HOME}` });
  return absolute;
}

/** The entry of `map` for this folder, whichever way the request named it. */
function entryFor<T>(map: Record<string, T> | undefined, access: FolderAccess, refs: string[]): T | undefined {
  if (!map) return undefined;
  const keys = [...refs, access.folder.name, toHex32(access.folder.id), access.folder.id];
  for (const key of keys) if (Object.prototype.hasOwnProperty.call(map, key)) return map[key];
  return undefined;
}

function requestedPermission(options: unknown, folder: string): { permission?: FolderPermission } {
  if (options === undefined || options === null) return {};
  const field = `mount_options.${folder}`;
  if (typeof options !== 'object' || Array.isArray(options)) throw badRequest(`${field} must be an object.`, { [field]: 'must be an object' });
  const { type, permission, perm } = options as Record<string, unknown>;
  if (type !== undefined && type !== null && type !== 'bind') throw badRequest(`${field}.type: only bind mounts of folders are supported.`, { [`${field}.type`]: 'unsupported' });
  const wanted = permission ?? perm;
  if (wanted === undefined || wanted === null) return {};
  if (!PERMISSIONS.includes(wanted as FolderPermission)) throw badRequest(`${field}.permission must be ro, rw or wd.`, { [`${field}.permission`]: 'invalid' });
  return { permission: wanted as FolderPermission };
}

export async function resolveSessionMounts(app: App, owner: Principal, config: MountRequest): Promise<SessionMount[]> {
  const refs = [...new Set([...(config.mounts ?? []), ...Object.keys(config.mount_map ?? {})])];
  if (!refs.length) return [];
  const folders = new Map<string, { access: FolderAccess; refs: string[] }>();
  for (const ref of refs) {
    let access: FolderAccess;
    try {
      access = await findFolder(app, owner, ref);
    } catch (err) {
      if (err instanceof Problem && (err.slug === 'object-not-found' || err.slug === 'too-many-vfolders')) {
        throw badRequest(`No such virtual folder: ${ref}`, { mounts: err.slug === 'object-not-found' ? 'unknown folder' : 'ambiguous folder name' });
      }
      throw err;
    }
    const seen = folders.get(access.folder.id);
    if (seen) seen.refs.push(ref);
    else folders.set(access.folder.id, { access, refs: [ref] });
  }

  const grantsByProject = new Map<string, Awaited<ReturnType<typeof grantsOf>>>();
  const mounts: SessionMount[] = [];
  for (const { access, refs: named } of folders.values()) {
    const folder = access.folder;
    requireStatus(folder, 'mountable');
    const projectKey = folder.group_id ?? '';
    if (!grantsByProject.has(projectKey)) {
      grantsByProject.set(projectKey, await grantsOf(app, folder.group_id ? { userId: owner.userId, domainName: folder.domain_name, keypairPolicy: owner.keypairPolicy } : owner, folder.group_id));
    }
    if (!permissionsOn(grantsByProject.get(projectKey)!, folder.host).has('mount-in-session')) {
      throw new Problem('vfolder-permission-error', `You may not mount folders of storage host ${folder.host} in sessions.`, { mounts: folder.name });
    }
    const fallback: FolderPermission = access.via === 'owner' ? folder.permission : access.permission;
    const { permission = fallback } = requestedPermission(entryFor(config.mount_options, access, named), folder.name);
    if (!permits(access.permission, permission)) {
      throw new Problem('vfolder-permission-error', `Your permission on "${folder.name}" (${access.permission}) does not allow a ${permission} mount.`, { mounts: folder.name });
    }
    const mapped = entryFor(config.mount_map, access, named);
    const kernelPath = mapped !== undefined ? kernelPathOf(mapped, folder.name) : `${KERNEL_HOME}/${folder.name}`;
    for (const other of mounts) {
      if (isInside(kernelPath, other.kernelPath) || isInside(other.kernelPath, kernelPath)) {
        throw badRequest(`The mounts of "${other.name}" and "${folder.name}" would overlap at ${kernelPath}.`, { mount_map: 'overlapping paths' });
      }
    }
    if (permission !== 'ro') await assertQuota(app, folder, 0);
    mounts.push({ id: folder.id, name: folder.name, kernelPath, permission });
  }
  return mounts;
}

/** The bind mounts of a session's stored folder list; a folder gone or no longer mountable fails the start. */
export async function kernelMountsFor(app: App, session: Pick<Session, 'mounts'>): Promise<KernelMount[]> {
  const mounts = session.mounts ?? [];
  if (!mounts.length) return [];
  const rows = await app.db.selectFrom('vfolders').select(['id', 'name', 'host', 'status', 'unmanaged_path']).where('id', 'in', mounts.map((m) => m.id)).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: KernelMount[] = [];
  for (const mount of mounts) {
    const folder = byId.get(mount.id);
    if (!folder || !(STATUS_SETS.mountable as readonly string[]).includes(folder.status)) {
      throw new Error(`The folder "${mount.name}" can no longer be mounted${folder ? ` (it is ${folder.status})` : ''}.`);
    }
    out.push({ hostPath: folderRootPath(app, folder), kernelPath: mount.kernelPath, readOnly: mount.permission === 'ro' });
  }
  await app.db.updateTable('vfolders').set({ last_used: new Date() }).where('id', 'in', rows.map((r) => r.id)).execute();
  return out.sort((a, b) => a.kernelPath.localeCompare(b.kernelPath));
}
