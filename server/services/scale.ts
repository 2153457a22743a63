/** POST /services/{id}/scale {to}: the desired count, within 0 … the owner's per-service maximum (CONTRACT §13). */
import type { App } from '../app';
import type { Endpoint } from '../db/schema';
import { checkSessionCount } from './limits';
import { requestScaling } from './scaler';

export async function scaleService(app: App, endpoint: Endpoint, to: number): Promise<{ current_route_count: number; target_count: number }> {
  await checkSessionCount(app, endpoint.session_owner, to, 'to');
  await app.db.updateTable('endpoints').set({ desired_session_count: to }).where('id', '=', endpoint.id).execute();
  const routes = await app.db.selectFrom('routings').select('id').where('endpoint_id', '=', endpoint.id).where('status', 'in', ['provisioning', 'healthy', 'unhealthy']).execute();
  requestScaling(app, 'service-scaled');
  return { current_route_count: routes.length, target_count: to };
}
