/**
 * The privilege checks of CONTRACT §2.3 as the admin operations use them, written once for every caller (GraphQL
 * resolvers and REST handlers pass their principal).
 */
import { Problem } from '../http/problem';
import { isAdmin, isSuperadmin, type Principal } from './principal';

export function requireAdmin(principal: Principal): void {
  if (!isAdmin(principal)) throw new Problem('insufficient-privilege', 'This operation needs admin privilege.');
}

export function requireSuperadmin(principal: Principal): void {
  if (!isSuperadmin(principal)) throw new Problem('insufficient-privilege', 'This operation needs superadmin privilege.');
}

export function outsideDomain(): Problem {
  return new Problem('generic-forbidden', 'Domain admins may act only within their own domain.');
}

/** Refuses unless the caller may manage objects of this domain (superadmin, or admin of that domain). */
export function assertManagesDomain(principal: Principal, domain: string): void {
  requireAdmin(principal);
  if (!isSuperadmin(principal) && domain !== principal.domainName) throw outsideDomain();
}

/** Whether the caller can see objects of this domain at admin level. */
export function adminSees(principal: Principal, domain: string): boolean {
  return isSuperadmin(principal) || (isAdmin(principal) && principal.domainName === domain);
}

/** 404 naming the object, as clients show it ("No such scaling group."). */
export function noSuch(what: string): Problem {
  return new Problem('object-not-found', `No such ${what}.`, undefined, { title: `No such ${what}.` });
}
