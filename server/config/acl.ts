/**
 * `GET /acl`: the storage-host permissions (CONTRACT §5.3) the caller holds on any host. Domains, projects and
 * keypair resource policies each grant `allowed_vfolder_hosts` ({host: [permission]}); the caller holds the
 * union over their domain, the projects they belong to and their keypair's policy.
 */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { ALL_HOST_PERMISSIONS } from '../accounts/bootstrap';

type HostPermissions = Record<string, unknown> | null | undefined;

export async function hostPermissionList(app: App, principal: Principal): Promise<{ vfolder_host_permission_list: string[] }> {
  const [domain, projects, policy] = await Promise.all([
    app.db.selectFrom('domains').select('allowed_vfolder_hosts').where('name', '=', principal.domainName).executeTakeFirst(),
    app.db
      .selectFrom('groups as g')
      .innerJoin('association_groups_users as m', 'm.group_id', 'g.id')
      .select('g.allowed_vfolder_hosts')
      .where('m.user_id', '=', principal.userId)
      .where('g.is_active', '=', true)
      .execute(),
    app.db.selectFrom('keypair_resource_policies').select('allowed_vfolder_hosts').where('name', '=', principal.keypairPolicy).executeTakeFirst(),
  ]);
  const granted = new Set<string>();
  for (const hosts of [domain?.allowed_vfolder_hosts, ...projects.map((p) => p.allowed_vfolder_hosts), policy?.allowed_vfolder_hosts]) {
    collect(hosts, granted);
  }
  return { vfolder_host_permission_list: ALL_HOST_PERMISSIONS.filter((p) => granted.has(p)) };
}

function collect(hosts: HostPermissions, into: Set<string>): void {
  for (const permissions of Object.values(hosts ?? {})) {
    if (Array.isArray(permissions)) for (const p of permissions) if (typeof p === 'string') into.add(p);
  }
}
