/** Projects (groups) as folder owners: lookup by uuid or name, and who administers them. */
import type { App } from '../app';
import { badRequest } from '../http/problem';
import { administers, type Viewer } from './access';
import { toUuid } from './ids';
import { isProjectMember } from '../projects/membership';

export interface ProjectRef {
  id: string;
  name: string;
  domain_name: string;
  resource_policy: string;
}

/**
 * A project by uuid (any domain) or by name (the viewer's domain), active only; 400 when there is none. A caller
 * who neither belongs to it nor administers it is told the same.
 */
export async function resolveProject(app: App, viewer: Viewer, reference: string, field = 'group'): Promise<ProjectRef> {
  const id = toUuid(reference);
  let query = app.db.selectFrom('groups').select(['id', 'name', 'domain_name', 'resource_policy']).where('is_active', '=', true);
  query = id ? query.where('id', '=', id) : query.where('name', '=', reference).where('domain_name', '=', viewer.domainName);
  const project = await query.executeTakeFirst();
  if (project && (administers(viewer, project.domain_name) || (await isProjectMember(app, { userId: viewer.userId, projectId: project.id })))) return project;
  throw badRequest(`No such project: ${reference}`, { [field]: 'unknown project' });
}


