/** A domain's stored row and the inputs of its create and modify operations. */
import type { App } from '../app';
import type { Domain } from '../db/schema';

export interface DomainProps {
  name?: string;
  description?: string | null;
  is_active?: boolean | null;
  total_resource_slots?: unknown;
  allowed_vfolder_hosts?: unknown;
  allowed_docker_registries?: (string | null)[] | null;
  integration_id?: string | null;
}

export function loadDomain(app: App, name: string): Promise<Domain | undefined> {
  return app.db.selectFrom('domains').selectAll().where('name', '=', name).executeTakeFirst();
}

/** The registry names given, empty entries dropped. */
export function registries(list: (string | null)[] | null | undefined): string[] {
  return (list ?? []).filter((r): r is string => typeof r === 'string' && r.length > 0);
}
