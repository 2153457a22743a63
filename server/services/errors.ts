/** GET /services/{id}/errors: the failed routes with their errors, and the service's retry count. */
import type { App } from '../app';
import type { Endpoint } from '../db/schema';

export async function serviceErrors(app: App, endpoint: Endpoint): Promise<{ errors: { session_id: string | null; error: unknown }[]; retries: number }> {
  const failed = await app.db.selectFrom('routings').select(['session_id', 'error']).where('endpoint_id', '=', endpoint.id).where('status', '=', 'failed_to_start').orderBy('created_at').execute();
  const fresh = await app.db.selectFrom('endpoints').select('retries').where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  return { errors: failed.map((r) => ({ session_id: r.session_id, error: r.error ?? {} })), retries: fresh.retries };
}
