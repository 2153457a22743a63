/** PUT /services/{id}/routings/{route_id} {traffic_ratio}: how much of the service's traffic the route takes. */
import type { App } from '../app';
import type { Endpoint } from '../db/schema';
import { notFound } from '../http/problem';
import { routeTableOf } from './route-table';

export async function updateRoute(app: App, endpoint: Endpoint, routeId: string, trafficRatio: number): Promise<{ success: true }> {
  const updated = await app.db
    .updateTable('routings')
    .set({ traffic_ratio: trafficRatio })
    .where('id', '=', routeIdOrNil(routeId))
    .where('endpoint_id', '=', endpoint.id)
    .returning('id')
    .executeTakeFirst();
  if (!updated) throw notFound('No such route.', `The service has no route ${routeId}.`);
  routeTableOf(app).invalidate(endpoint.id);
  return { success: true };
}

/** A route id as the database compares it; anything that is not a uuid matches nothing. */
export function routeIdOrNil(routeId: string): string {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(routeId) ? routeId.toLowerCase() : '00000000-0000-0000-0000-000000000000';
}
