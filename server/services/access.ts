/**
 * The one access rule for model services, written once and used in two forms: `reachesService` checks one service
 * (a read by id, a write), `reachableServices` narrows a query of `endpoints as e` (lists, counts), so a list never
 * shows what a read refuses. The rule is the sessions': a caller reaches a service that is theirs (whichever of their
 * keypairs made it), every service of their domain when they are a domain admin, every service when superadmin.
 * Anything else, and a destroyed service, is 404 exactly like a service that does not exist.
 */
import type { App } from '../app';
import { isAdmin, isSuperadmin, type Principal } from '../auth/principal';
import type { AnyExpressionBuilder, AnySelect } from '../db/untyped';
import type { Endpoint } from '../db/schema';
import { notFound } from '../http/problem';
import { canonicalUuid } from '../util/uuid';

/** The rule for one caller: everything, or their own services plus (for a domain admin) their domain's. */
type Reach = { all: true } | { all: false; owner: string; domain: string | null };

function reachOf(caller: Principal): Reach {
  if (isSuperadmin(caller)) return { all: true };
  return { all: false, owner: caller.userId, domain: isAdmin(caller) ? caller.domainName : null };
}

/** Whether `caller` reaches this service (reads and writes by id). */
export function reachesService(caller: Principal, endpoint: Pick<Endpoint, 'session_owner' | 'domain_name'>): boolean {
  const reach = reachOf(caller);
  return reach.all || endpoint.session_owner === reach.owner || endpoint.domain_name === reach.domain;
}

/** The same rule as a condition on a query over `endpoints as e` (lists and counts). */
export function reachableServices<Q extends AnySelect>(caller: Principal, query: Q): Q {
  const reach = reachOf(caller);
  if (reach.all) return query;
  const { owner, domain } = reach;
  return query.where((eb: AnyExpressionBuilder) => eb.or([eb('e.session_owner', '=', owner), ...(domain ? [eb('e.domain_name', '=', domain)] : [])])) as Q;
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
