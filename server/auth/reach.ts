/**
 * The access rule most resources share, as data and in its two forms: a superadmin reaches everything; anyone else
 * what they own, plus their domain's when they are a domain admin. Sessions (by access key), model services and
 * templates (by user) each apply it to their own columns; folders have a rule of their own (storage/access.ts).
 */
import type { AnyExpressionBuilder, AnySelect } from '../db/untyped';
import { isAdmin, isSuperadmin, type Principal } from './principal';

export type OwnerReach = { all: true } | { all: false; owner: string; domain: string | null };

/** The rule for `caller`, owning by its user id or by its access key. */
export function ownerReach(caller: Principal, ownedBy: 'userId' | 'accessKey'): OwnerReach {
  if (isSuperadmin(caller)) return { all: true };
  return { all: false, owner: caller[ownedBy], domain: isAdmin(caller) ? caller.domainName : null };
}

/** Whether the rule reaches one resource (a read by id, a write). */
export function reaches(reach: OwnerReach, resource: { owner: string; domain: string }): boolean {
  return reach.all || resource.owner === reach.owner || resource.domain === reach.domain;
}

/** The same rule as a condition on a query whose owner and domain are the given columns (lists and counts). */
export function reachable<Q extends AnySelect>(reach: OwnerReach, query: Q, columns: { owner: string; domain: string }): Q {
  if (reach.all) return query;
  const { owner, domain } = reach;
  return query.where((eb: AnyExpressionBuilder) =>
    eb.or([eb(eb.ref(columns.owner), '=', owner), ...(domain ? [eb(eb.ref(columns.domain), '=', domain)] : [])]),
  ) as Q;
}
