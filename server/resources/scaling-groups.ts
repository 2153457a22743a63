/**
 * The scaling groups a caller may use within a project: those associated with the project, with its domain, or
 * with the caller's keypair, that are active. Private groups are for admins only (CONTRACT §12).
 */
import type { App } from '../app';
import { isAdmin, type Principal } from '../auth/principal';
import { projectForCaller, type ProjectRef } from './project';

export async function allowedScalingGroups(app: App, principal: Principal, project: ProjectRef): Promise<string[]> {
  const [forDomain, forProject, forKeypair] = await Promise.all([
    app.db.selectFrom('sgroups_for_domains').select('scaling_group').where('domain', '=', project.domainName).execute(),
    app.db.selectFrom('sgroups_for_groups').select('scaling_group').where('group_id', '=', project.id).execute(),
    app.db.selectFrom('sgroups_for_keypairs').select('scaling_group').where('access_key', '=', principal.accessKey).execute(),
  ]);
  const names = [...new Set([...forDomain, ...forProject, ...forKeypair].map((row) => row.scaling_group))];
  if (!names.length) return [];
  let query = app.db.selectFrom('scaling_groups').select('name').where('name', 'in', names).where('is_active', '=', true);
  if (!isAdmin(principal)) query = query.where('is_public', '=', true);
  const rows = await query.orderBy('name').execute();
  return rows.map((row) => row.name);
}

/** `GET /scaling-groups?group=`: the scaling groups the caller may use in that project. */
export async function listScalingGroups(app: App, principal: Principal, group: string) {
  const project = await projectForCaller(app, principal, group);
  const names = await allowedScalingGroups(app, principal, project);
  return { scaling_groups: names.map((name) => ({ name })) };
}
