/**
 * Acting on behalf of another keypair with `owner_access_key` (CONTRACT §2.4): superadmins for anyone, domain
 * admins for non-superadmin users of their own domain, everyone else only for themselves.
 */
import type { KeypairCache } from './keypair-cache';
import { Problem } from '../http/problem';
import type { AnySelect } from '../db/untyped';
import { ownerReach, reachable, reaches } from './reach';
import { isAdmin, isSuperadmin, type Principal } from './principal';

export async function actingAs(app: { keypairs: KeypairCache }, caller: Principal, ownerAccessKey: string | undefined | null): Promise<Principal> {
  if (!ownerAccessKey || ownerAccessKey === caller.accessKey) return caller;
  if (!isAdmin(caller)) throw new Problem('generic-forbidden', 'Only administrators may act for another access key.');
  const owner = await app.keypairs.get(ownerAccessKey);
  if (!owner) throw new Problem('invalid-api-params', 'Unknown owner access key', { owner_access_key: 'unknown' });
  if (isSuperadmin(caller)) return owner;
  if (owner.domainName !== caller.domainName || isSuperadmin(owner)) {
    throw new Problem('generic-forbidden', 'Domain administrators may act only for users of their own domain.');
  }
  return owner;
}

/**
 * Whom a viewer sees among resources owned by an access key (sessions, and what hangs off them): everything for a
 * superadmin; else their own access key's, plus their domain's for a domain admin. One rule, two forms: canSee for
 * one resource (a read by id, a write), seenBy for a query (lists and counts), so a list never shows what a read
 * refuses.
 */
/** Whether `viewer` may see a resource owned in `domainName` by `ownerAccessKey`. */
export function canSee(viewer: Principal, owner: { accessKey: string; domainName: string }): boolean {
  return reaches(ownerReach(viewer, 'accessKey'), { owner: owner.accessKey, domain: owner.domainName });
}

/** canSee as a condition on a query whose owner access key and domain are the given columns. */
export function seenBy<Q extends AnySelect>(viewer: Principal, query: Q, columns: { accessKey: string; domainName: string }): Q {
  return reachable(ownerReach(viewer, 'accessKey'), query, { owner: columns.accessKey, domain: columns.domainName });
}
