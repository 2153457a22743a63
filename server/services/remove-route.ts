/**
 * DELETE /services/{id}/routings/{route_id}: the route leaves and the desired count drops by one (CONTRACT §13).
 * A route still provisioning cannot be removed (400).
 */
import type { App } from '../app';
import type { Endpoint } from '../db/schema';
import { badRequest, notFound } from '../http/problem';
import { removeRoute } from './routes';
import { requestScaling } from './scaler';
import { routeTableOf } from './route-table';
import { routeIdOrNil } from './update-route';

export async function removeServiceRoute(app: App, endpoint: Endpoint, routeId: string): Promise<{ success: true }> {
  const route = await app.db.selectFrom('routings').selectAll().where('id', '=', routeIdOrNil(routeId)).where('endpoint_id', '=', endpoint.id).executeTakeFirst();
  if (!route) throw notFound('No such route.', `The service has no route ${routeId}.`);
  if (route.status === 'provisioning') throw badRequest('The route is still provisioning; remove it once it is up.', { route_id: 'provisioning' });
  await app.db
    .updateTable('endpoints')
    .set((eb) => ({ desired_session_count: eb.fn('greatest', [eb.val(0), eb('desired_session_count', '-', 1)]) }))
    .where('id', '=', endpoint.id)
    .execute();
  if (route.status === 'failed_to_start') await app.db.deleteFrom('routings').where('id', '=', route.id).execute();
  else await removeRoute(app, route);
  routeTableOf(app).invalidate(endpoint.id);
  requestScaling(app, 'route-removed');
  return { success: true };
}
