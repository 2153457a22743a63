/**
 * The one access rule for model services, written once and used in two forms: `reachesService` checks one service
 * (a read by id, a write), `reachableServices` narrows a query of `endpoints as e` (lists, counts), so a list never
 * shows what a read refuses. The rule is the sessions': a caller reaches a service that is theirs (whichever of their
 * keypairs made it), every service of their domain when they are a domain admin, every service when superadmin.
 * Anything else, and a destroyed service, is 404 exactly like a service that does not exist.
 */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { ownerReach, reachable, reaches } from '../auth/reach';
import type { AnySelect } from '../db/untyped';
import type { Endpoint } from '../db/schema';
import { notFound } from '../http/problem';
import { canonicalUuid } from '../util/uuid';

/** Whether `caller` reaches this service (reads and writes by id). */
export function reachesService(caller: Principal, endpoint: Pick<Endpoint, 'session_owner' | 'domain_name'>): boolean {
  return reaches(ownerReach(caller, 'userId'), { owner: endpoint.session_owner, domain: endpoint.domain_name });
}

/** The same rule as a condition on a query over `endpoints as e` (lists and counts). */
export function reachableServices<Q extends AnySelect>(caller: Principal, query: Q): Q {
  return reachable(ownerReach(caller, 'userId'), query, { owner: 'e.session_owner', domain: 'e.domain_name' });
}

export async function findService(app: App, caller: Principal, reference: string): Promise<Endpoint> {
  const id = canonicalUuid(reference);
  const endpoint = id
    ? await app.db.selectFrom('endpoints').selectAll().where('id', '=', id).where('lifecycle_stage', '<>', 'destroyed').executeTakeFirst()
    : undefined;
  if (!endpoint || !reachesService(caller, endpoint)) {
    throw notFound('No such model service.', `No model service identified by "${reference}".`);
  }
  return endpoint;
}
