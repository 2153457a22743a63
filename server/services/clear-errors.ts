/** POST /services/{id}/errors/clear: failed routes are deleted and retries reset, so the scaler tries again. */
import type { App } from '../app';
import type { Endpoint } from '../db/schema';
import { requestScaling } from './scaler';

export async function clearServiceErrors(app: App, endpoint: Endpoint): Promise<Record<string, never>> {
  await app.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('routings').where('endpoint_id', '=', endpoint.id).where('status', '=', 'failed_to_start').execute();
    await trx.updateTable('endpoints').set({ retries: 0 }).where('id', '=', endpoint.id).execute();
  });
  requestScaling(app, 'errors-cleared');
  return {};
}
