/**
 * The one access rule for folders, written once and used in two forms: `accessOf` checks one folder row (a read by
 * id, a write), `reachableBy` narrows a folder query (lists), so a list never shows what a read refuses. A caller
 * reaches a folder by id, or by name among the folders a name may mean (every route but the last), and gets a
 * permission on its files:
 *
 * | who                                                                 | permission                  | manages |
 * |---------------------------------------------------------------------|-----------------------------|---------|
 * | the owner of a user folder                                          | wd                          | yes     |
 * | group folders: a superadmin, or a domain admin of the project's     | wd (`is_owner` true)        | yes     |
 * |   domain                                                            |                             |         |
 * | a user the folder is shared with (invitation, share)                | their `vfolder_permissions` | no      |
 * | group folders: a member of the owning project                       | the folder's `permission`   | no      |
 * | user folders: a superadmin, or a domain admin of the owner's domain | wd                          | yes     |
 * |   (by id, not by name; none for a domain admin over a superadmin's) |                             |         |
 *
 * `ro` reads, `rw` also writes (mkdir, move, rename, upload), `wd` also deletes files. Renaming, re-configuring and
 * deleting the folder itself is for whoever manages it. Anyone else gets 404 "No such virtual folder.", exactly
 * as for a folder that does not exist. Status sets (CONTRACT §5.3) are checked here too: 400
 * vfolder-filter-status-failed.
 */
import { sql } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import type { FolderPermission, VFolder } from '../db/schema';
import { literal, literals } from '../db/literal';
import { Problem, notFound } from '../http/problem';
import { toUuid } from './ids';

export const FOLDER_STATUSES = [
  'ready', 'performing', 'cloning', 'mounted', 'error', 'delete-pending', 'delete-ongoing', 'delete-complete', 'delete-error',
] as const;
export type FolderStatus = (typeof FOLDER_STATUSES)[number];

export const STATUS_SETS = {
  readable: ['ready', 'performing', 'cloning', 'mounted', 'error', 'delete-pending'],
  mountable: ['ready', 'performing', 'cloning', 'mounted'],
  updatable: ['ready', 'mounted'],
  deletable: ['ready'],
  purgeable: ['delete-pending', 'delete-complete'],
} as const satisfies Record<string, readonly FolderStatus[]>;
export type StatusSet = keyof typeof STATUS_SETS;

/** Statuses of folders in the trash: they keep their data but free their name. */
export const TRASHED: readonly string[] = ['delete-pending', 'delete-ongoing', 'delete-complete', 'delete-error'];
/** Statuses no lookup finds any more (being purged, or purged). */
const GONE: readonly string[] = ['delete-ongoing', 'delete-complete'];

const RANK: Record<FolderPermission, number> = { ro: 1, rw: 2, wd: 3 };
export const PERMISSIONS: readonly FolderPermission[] = ['ro', 'rw', 'wd'];

/** At least as much as `need`. */
export function permits(have: FolderPermission, need: FolderPermission): boolean {
  return RANK[have] >= RANK[need];
}

/** Who is looking: a principal, or (GET /folders?owner_user_email) the user a superadmin lists as. */
export type Viewer = Pick<Principal, 'userId' | 'domainName' | 'role' | 'isAdmin'>;

/** Superadmins administer every domain's projects and folders; admins those of their own domain. */
export function administers(viewer: Viewer, domainName: string): boolean {
  const { admin } = reachOf(viewer);
  return !!admin && (admin.all || admin.domain === domainName);
}

/** A folder row with what the access check and the responses need from its owner and project. */
export interface FolderRow extends VFolder {
  owner_email: string | null;
  owner_role: string | null;
  group_name: string | null;
  /** The owner's domain (user folders) or the project's (group folders). */
  domain_name: string;
  /** The viewer's own `vfolder_permissions` entry, if any. */
  shared_permission: FolderPermission | null;
  /** Whether the viewer belongs to the owning project. */
  is_member: boolean;
}

export type AccessRoute = 'owner' | 'project-admin' | 'shared' | 'project' | 'admin';

export interface FolderAccess {
  folder: FolderRow;
  /** The viewer's permission on the folder's files. */
  permission: FolderPermission;
  /** Owns the user folder, or administers the project of a group folder (`is_owner` in responses). */
  isOwner: boolean;
  /** May rename, re-configure, delete the folder and set its quota. */
  manages: boolean;
  via: AccessRoute;
}

function isSuper(v: Viewer): boolean {
  return v.role === 'superadmin';
}

/**
 * The rule for one viewer, as data: who they are, and which folders they administer (none; those of one domain
 * except superadmins' folders; all). `accessOf` and `reachableBy` are both read off it, route by route, in the
 * order of the table above.
 */
interface Reach {
  userId: string;
  admin: { all: true } | { all: false; domain: string } | null;
}

function reachOf(viewer: Viewer): Reach {
  if (isSuper(viewer)) return { userId: viewer.userId, admin: { all: true } };
  return { userId: viewer.userId, admin: viewer.isAdmin || viewer.role === 'admin' ? { all: false, domain: viewer.domainName } : null };
}

/** Whether the reach's admin part covers this folder (domain admins have no authority over superadmins' folders, CONTRACT §2.4). */
function adminOver(reach: Reach, folder: Pick<FolderRow, 'domain_name' | 'owner_role'>): boolean {
  if (!reach.admin) return false;
  return reach.admin.all || (folder.domain_name === reach.admin.domain && folder.owner_role !== 'superadmin');
}

/** The viewer's access to one folder row, or null when they may not see it (the rule as a check). */
export function accessOf(viewer: Viewer, folder: FolderRow): FolderAccess | null {
  const reach = reachOf(viewer);
  if (folder.ownership_type === 'user' && folder.user_uuid === reach.userId) {
    return { folder, permission: 'wd', isOwner: true, manages: true, via: 'owner' };
  }
  const admin = adminOver(reach, folder);
  if (folder.ownership_type === 'group' && admin) return { folder, permission: 'wd', isOwner: true, manages: true, via: 'project-admin' };
  if (folder.shared_permission) return { folder, permission: folder.shared_permission, isOwner: false, manages: false, via: 'shared' };
  if (folder.ownership_type === 'group' && folder.is_member) return { folder, permission: folder.permission, isOwner: false, manages: false, via: 'project' };
  if (folder.ownership_type === 'user' && admin) return { folder, permission: 'wd', isOwner: false, manages: true, via: 'admin' };
  return null;
}

/** Folders with their owner, project and the viewer's share and membership, as one query. */
export function folderQuery(app: App, viewerId: string) {
  return app.db
    .selectFrom('vfolders as v')
    .leftJoin('users as u', 'u.uuid', 'v.user_uuid')
    .leftJoin('groups as g', 'g.id', 'v.group_id')
    .leftJoin('vfolder_permissions as p', (join) => join.onRef('p.vfolder_id', '=', 'v.id').on('p.user_uuid', '=', viewerId))
    .leftJoin('association_groups_users as m', (join) => join.onRef('m.group_id', '=', 'v.group_id').on('m.user_id', '=', viewerId))
    .selectAll('v')
    .select([
      'u.email as owner_email',
      'u.role as owner_role',
      'g.name as group_name',
      sql<string>`coalesce(u.domain_name, g.domain_name)`.as('domain_name'),
      'p.permission as shared_permission',
      sql<boolean>`(m.user_id is not null)`.as('is_member'),
    ]);
}

export type FolderQuery = ReturnType<typeof folderQuery>;

/** Leaves out folders being purged or purged (GONE): no lookup or list finds them. */
export function notGone(query: FolderQuery): FolderQuery {
  return query.where('v.status', 'not in', literals(GONE));
}

export interface ReachOptions {
  /**
   * Only the folders a name may mean (lookups by name, the duplicate-name check): every route but the admin's,
   * which reaches other users' folders by id. Their names are theirs: counted as the admin's, they would collide
   * with the admin's own folders and with each other.
   */
  byName?: boolean;
}

/** The rule as a condition on a folder query (lists, lookups by name): the rows `accessOf` gives access to. */
export function reachableBy(query: FolderQuery, viewer: Viewer, options: ReachOptions = {}): FolderQuery {
  const reach = reachOf(viewer);
  return query.where((eb) => {
    const user = eb('v.ownership_type', '=', literal('user'));
    const group = eb('v.ownership_type', '=', literal('group'));
    const ways = [
      eb.and([user, eb('v.user_uuid', '=', reach.userId)]),
      eb('p.user_uuid', 'is not', null),
      eb.and([group, eb('m.user_id', 'is not', null)]),
    ];
    if (reach.admin) {
      const { admin } = reach;
      const over = (kind: typeof user) =>
        admin.all ? kind : eb.and([kind, eb(sql<string>`coalesce(u.domain_name, g.domain_name)`, '=', admin.domain), eb(sql<string>`coalesce(u.role, '')`, '<>', literal('superadmin'))]);
      ways.push(over(group));
      if (!options.byName) ways.push(over(user));
    }
    return eb.or(ways);
  });
}

function statusRank(status: string): number {
  return TRASHED.includes(status) ? 1 : 0;
}

/**
 * The folder `reference` (a name, or a hex32 or hyphenated id) as the viewer sees it; 404 when they cannot.
 * A name matches the folders the viewer can reach; among several, a live folder wins over one in the trash and
 * the viewer's own user folder over others; a remaining tie is 404 too-many-vfolders.
 */
export async function findFolder(app: App, viewer: Viewer, reference: string): Promise<FolderAccess> {
  const byName = await notGone(reachableBy(folderQuery(app, viewer.userId), viewer, { byName: true })).where('v.name', '=', reference).execute();
  const candidates = byName
    .map((row) => accessOf(viewer, row))
    .filter((a): a is FolderAccess => a !== null)
    .sort((a, b) => statusRank(a.folder.status) - statusRank(b.folder.status) || Number(b.via === 'owner') - Number(a.via === 'owner') || b.folder.created_at.getTime() - a.folder.created_at.getTime());
  if (candidates.length) {
    const [first, second] = candidates;
    const tie = second && statusRank(second.folder.status) === statusRank(first.folder.status) && (second.via === 'owner') === (first.via === 'owner');
    if (tie && statusRank(first.folder.status) === 0) {
      throw new Problem('too-many-vfolders', `More than one folder named "${reference}" is reachable; use its id.`, {
        matches: candidates.map((c) => ({ id: c.folder.id.replace(/-/g, ''), name: c.folder.name, host: c.folder.host })),
      });
    }
    return first;
  }
  const id = toUuid(reference);
  if (id) {
    const access = await folderById(app, viewer, id);
    if (access) return access;
  }
  throw notFound('No such virtual folder.', `No virtual folder named or identified by "${reference}".`);
}

/** The folder with this id as the viewer sees it, or null when it does not exist or they may not see it. */
export async function folderById(app: App, viewer: Viewer, id: string): Promise<FolderAccess | null> {
  const uuid = toUuid(id);
  if (!uuid) return null;
  const row = await notGone(folderQuery(app, viewer.userId)).where('v.id', '=', uuid).executeTakeFirst();
  return row ? accessOf(viewer, row) : null;
}

/** 400 vfolder-filter-status-failed unless the folder's status is in the set. */
export function requireStatus(folder: Pick<VFolder, 'status' | 'name'>, set: StatusSet): void {
  if (!(STATUS_SETS[set] as readonly string[]).includes(folder.status)) {
    throw new Problem('vfolder-filter-status-failed', `The folder "${folder.name}" is ${folder.status}; this needs a ${set} folder.`, {
      status: folder.status,
      allowed: STATUS_SETS[set],
    });
  }
}

/** 403 unless the viewer's permission on the folder's files is at least `need`. */
export function requirePermission(access: FolderAccess, need: FolderPermission): void {
  if (!permits(access.permission, need)) {
    const what = need === 'ro' ? 'read' : need === 'rw' ? 'write to' : 'delete files in';
    throw new Problem('generic-forbidden', `Your permission on this folder (${access.permission}) does not let you ${what} it.`);
  }
}

/** 403 unless the viewer manages the folder (its owner, or an admin with authority over it). */
export function requireManager(access: FolderAccess): void {
  if (!access.manages) throw new Problem('generic-forbidden', 'Only the owner of the folder or an administrator may do this.');
}

/** Looks a folder up and checks status and permission in one go: what most file operations need. */
export async function folderFor(app: App, viewer: Viewer, reference: string, need: FolderPermission, set: StatusSet): Promise<FolderAccess> {
  const access = await findFolder(app, viewer, reference);
  requirePermission(access, need);
  requireStatus(access.folder, set);
  return access;
}
