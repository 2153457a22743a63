/**
 * Resolves the `group` parameter of the resource routes (a project name in the caller's domain, or a project
 * uuid) to a project the caller may use. Superadmins may use any project; domain admins any project of their
 * domain; users the projects they belong to. Anything else reads as unknown, so existence does not leak.
 */
import type { App } from '../app';
import { isAdmin, isSuperadmin, type Principal } from '../auth/principal';
import { badRequest } from '../http/problem';
import type { Slots } from '../db/schema';
import { isProjectMember } from '../projects/membership';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

export interface ProjectRef {
  id: string;
  name: string;
  domainName: string;
  totalResourceSlots: Slots;
}

export async function projectForCaller(app: App, principal: Principal, ref: string): Promise<ProjectRef> {
  let query = app.db
    .selectFrom('groups')
    .select(['id', 'name', 'domain_name', 'total_resource_slots'])
    .where('is_active', '=', true);
  // Only a well-formed uuid may reach the uuid column: anything else would be a database error, not a 400.
  query = UUID.test(ref) ? query.where('id', '=', ref) : query.where('name', '=', ref).where('domain_name', '=', principal.domainName);
  const project = await query.executeTakeFirst();
  if (!project || !(await mayUse(app, principal, project))) throw badRequest('Unknown project.', { group: 'no such project' });
  return { id: project.id, name: project.name, domainName: project.domain_name, totalResourceSlots: project.total_resource_slots ?? {} };
}

async function mayUse(app: App, principal: Principal, project: { id: string; domain_name: string }): Promise<boolean> {
  if (isSuperadmin(principal)) return true;
  if (project.domain_name !== principal.domainName) return false;
  if (isAdmin(principal)) return true;
  return isProjectMember(app, { userId: principal.userId, projectId: project.id });
}
