/** GET /services: the caller's own services (any of their keypairs) in lifecycle `created`, optionally by name (CONTRACT §13). */
import { sql } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { serviceEndpointUrl } from './shapes';

export async function listServices(app: App, caller: Principal, name?: string | null): Promise<Record<string, unknown>[]> {
  let query = app.db
    .selectFrom('endpoints as e')
    .select([
      'e.id', 'e.name', 'e.desired_session_count', 'e.open_to_public',
      sql<number>`(select count(*) from routings r where r.endpoint_id = e.id and r.status = 'healthy')::int`.as('active_route_count'),
    ])
    .where('e.session_owner', '=', caller.userId)
    .where('e.lifecycle_stage', '=', 'created')
    .orderBy('e.created_at');
  if (name) query = query.where('e.name', '=', name);
  const rows = await query.execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    desired_session_count: r.desired_session_count,
    active_route_count: Number(r.active_route_count),
    service_endpoint: serviceEndpointUrl(app, r),
    is_public: r.open_to_public,
  }));
}
