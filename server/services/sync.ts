/** POST /services/{id}/sync: the app proxy drops its copy of the service's route table and reads it afresh. */
import type { App } from '../app';
import type { Endpoint } from '../db/schema';
import { routeTableOf } from './route-table';
import { requestScaling } from './scaler';

export async function syncService(app: App, endpoint: Endpoint): Promise<{ success: true }> {
  routeTableOf(app).invalidate(endpoint.id);
  requestScaling(app, 'service-synced');
  return { success: true };
}
