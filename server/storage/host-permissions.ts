/**
 * Storage-host permissions (CONTRACT §5.3). Domains, projects and keypair resource policies each grant
 * `allowed_vfolder_hosts` = `{<key>: [permission, …]}`. A key names either a whole proxy (`local`: every volume of
 * proxy `local`) or one host (`local:volume1`).
 *
 * - For user folders (and `GET /acl`), a caller holds the union over their domain, every active project they
 *   belong to and their keypair's policy.
 * - For a project's folders, the union over the domain, that project and the keypair's policy.
 */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { ALL_HOST_PERMISSIONS } from '../accounts/bootstrap';
import type { VFolder } from '../db/schema';
import { Problem } from '../http/problem';

export type HostPermission =
  | 'create-vfolder'
  | 'modify-vfolder'
  | 'delete-vfolder'
  | 'mount-in-session'
  | 'upload-file'
  | 'download-file'
  | 'invite-others'
  | 'set-user-specific-permission';

type Grant = Record<string, unknown> | null | undefined;

/** Who is asking: enough of a principal to find their grants. */
export type Grantee = Pick<Principal, 'userId' | 'domainName' | 'keypairPolicy'>;

/** The grants that apply: for the caller's user folders (no project), or for one project's folders. */
export async function grantsOf(app: App, who: Grantee, projectId?: string | null): Promise<Grant[]> {
  const projects = app.db
    .selectFrom('groups as g')
    .select('g.allowed_vfolder_hosts')
    .where('g.is_active', '=', true);
  const [domain, groups, policy] = await Promise.all([
    app.db.selectFrom('domains').select('allowed_vfolder_hosts').where('name', '=', who.domainName).executeTakeFirst(),
    projectId
      ? projects.where('g.id', '=', projectId).execute()
      : projects.innerJoin('association_groups_users as m', 'm.group_id', 'g.id').where('m.user_id', '=', who.userId).execute(),
    app.db.selectFrom('keypair_resource_policies').select('allowed_vfolder_hosts').where('name', '=', who.keypairPolicy).executeTakeFirst(),
  ]);
  return [domain?.allowed_vfolder_hosts, ...groups.map((g) => g.allowed_vfolder_hosts), policy?.allowed_vfolder_hosts];
}

/** Whether a grant key covers `host` (`proxy` covers all its volumes, `proxy:volume` exactly one). */
export function keyCovers(key: string, host: string): boolean {
  if (key === host) return true;
  return !key.includes(':') && host.startsWith(`${key}:`);
}

/** The permissions the grants give on one host. */
export function permissionsOn(grants: Grant[], host: string): Set<string> {
  const out = new Set<string>();
  for (const grant of grants) {
    for (const [key, permissions] of Object.entries(grant ?? {})) {
      if (!keyCovers(key, host) || !Array.isArray(permissions)) continue;
      for (const p of permissions) if (typeof p === 'string') out.add(p);
    }
  }
  return out;
}

/** Hosts among `hosts` on which the grants give any permission. */
export function hostsWithAnyPermission(grants: Grant[], hosts: string[]): string[] {
  return hosts.filter((host) => permissionsOn(grants, host).size > 0);
}

/** 403 unless the grants give `permission` on `host`. */
export function requireHostPermission(grants: Grant[], host: string, permission: HostPermission): void {
  if (!permissionsOn(grants, host).has(permission)) {
    throw new Problem('generic-forbidden', `You are not allowed to ${permission.replace('-', ' ')} on storage host ${host}.`, { host, permission });
  }
}

/** `GET /acl`: every host permission the caller holds on any host. */
export async function hostPermissionList(app: App, principal: Principal): Promise<{ vfolder_host_permission_list: string[] }> {
  const granted = new Set<string>();
  for (const grant of await grantsOf(app, principal)) {
    for (const permissions of Object.values(grant ?? {})) {
      if (Array.isArray(permissions)) for (const p of permissions) if (typeof p === 'string') granted.add(p);
    }
  }
  return { vfolder_host_permission_list: ALL_HOST_PERMISSIONS.filter((p) => granted.has(p)) };
}

/** 403 unless the caller holds `permission` on the folder's host, from the grants that apply to that folder. */
export async function requireFolderHostPermission(
  app: App,
  caller: Principal,
  folder: Pick<VFolder, 'host' | 'group_id'> & { domain_name: string },
  permission: HostPermission,
): Promise<void> {
  const grantee = folder.group_id ? { userId: caller.userId, domainName: folder.domain_name, keypairPolicy: caller.keypairPolicy } : caller;
  requireHostPermission(await grantsOf(app, grantee, folder.group_id), folder.host, permission);
}
