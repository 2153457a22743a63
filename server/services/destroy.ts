/** DELETE /services/{id}: the service goes to `destroying`; the scaler drains its routes, then destroys it. */
import type { App } from '../app';
import type { Endpoint } from '../db/schema';
import { requestScaling } from './scaler';
import { routeTableOf } from './route-table';

export async function destroyService(app: App, endpoint: Endpoint): Promise<{ success: true }> {
  await app.db.updateTable('endpoints').set({ lifecycle_stage: 'destroying' }).where('id', '=', endpoint.id).where('lifecycle_stage', '=', 'created').execute();
  routeTableOf(app).invalidate(endpoint.id);
  requestScaling(app, 'service-deleted');
  return { success: true };
}
