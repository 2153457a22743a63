/** A project's stored row, who may manage it, and the checks its create and modify operations share. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { adminSees, noSuch, requireAdmin } from '../auth/privilege';
import type { Group } from '../db/schema';
import { badRequest as invalid } from '../http/problem';

const GROUP_TYPES = ['general', 'model-store'];

/** Wire form (GENERAL, MODEL_STORE) to the stored one (general, model-store). */
export function storedType(wire: string): string {
  const stored = wire.trim().toLowerCase().replace(/_/g, '-');
  if (!GROUP_TYPES.includes(stored)) throw invalid(`type must be one of GENERAL, MODEL_STORE.`);
  return stored;
}

/** The id of the project named `name` in `domain` (active or not), if there is one: names are unique per domain. */
export async function projectIdByName(app: Pick<App, 'db'>, domain: string, name: string): Promise<string | undefined> {
  return (await app.db.selectFrom('groups').select('id').where('domain_name', '=', domain).where('name', '=', name).executeTakeFirst())?.id;
}

export function loadGroup(app: App, id: string): Promise<Group | undefined> {
  return app.db.selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst();
}


/** The group for a management operation: missing, or outside a domain admin's domain, reads as not found. */
export async function managedGroup(app: App, principal: Principal, id: string): Promise<Group> {
  requireAdmin(principal);
  const group = await loadGroup(app, id);
  if (!group || !adminSees(principal, group.domain_name)) throw noSuch('project');
  return group;
}

export interface GroupProps {
  name?: string | null;
  type?: string | null;
  description?: string | null;
  is_active?: boolean | null;
  domain_name?: string | null;
  total_resource_slots?: unknown;
  allowed_vfolder_hosts?: unknown;
  integration_id?: string | null;
  resource_policy?: string | null;
  user_update_mode?: string | null;
  user_uuids?: (string | null)[] | null;
}

