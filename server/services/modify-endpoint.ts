/**
 * `modify_endpoint`: a service's replica count (within the owner's limits), whether it is open to the public, and
 * its environment. The caller has found the endpoint through its own visibility rule; the route table and the
 * scaler learn of the change.
 */
import type { App } from '../app';
import { json } from '../db';
import type { Endpoint } from '../db/schema';
import { badRequest as invalid } from '../http/problem';
import { given } from '../admin/values';
import { checkSessionCount } from './limits';
import { routeTableOf } from './route-table';
import { requestScaling } from './scaler';

export interface EndpointChanges {
  replicas?: number | null;
  desired_session_count?: number | null;
  open_to_public?: boolean | null;
  environ?: unknown;
}

export async function modifyEndpoint(app: App, endpoint: Pick<Endpoint, 'id' | 'session_owner'>, changes: EndpointChanges): Promise<void> {
  const props = given(changes);
  const set: Record<string, unknown> = {};
  const count = props.desired_session_count ?? props.replicas;
  if (count !== undefined && count !== null) {
    await checkSessionCount(app, endpoint.session_owner, count, 'replicas');
    set.desired_session_count = count;
  }
  if (props.open_to_public !== undefined && props.open_to_public !== null) set.open_to_public = props.open_to_public;
  if (props.environ !== undefined && props.environ !== null) {
    const environ = props.environ;
    if (typeof environ !== 'object' || Array.isArray(environ) || Object.values(environ as object).some((v) => typeof v !== 'string')) throw invalid('environ must be an object of strings.');
    set.environ = json(environ);
  }
  if (Object.keys(set).length) await app.db.updateTable('endpoints').set(set).where('id', '=', endpoint.id).execute();
  routeTableOf(app).invalidate(endpoint.id);
  requestScaling(app, 'service-modified');
}
