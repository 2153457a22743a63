/**
 * Acting on behalf of another keypair with `owner_access_key` (CONTRACT §2.4): superadmins for anyone, domain
 * admins for non-superadmin users of their own domain, everyone else only for themselves.
 */
import type { KeypairCache } from './keypair-cache';
import { Problem } from '../http/problem';
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

/** Whether `viewer` may see a resource owned in `domainName` by `ownerAccessKey`. */
export function canSee(viewer: Principal, owner: { accessKey: string; domainName: string }): boolean {
  if (viewer.accessKey === owner.accessKey) return true;
  if (isSuperadmin(viewer)) return true;
  return isAdmin(viewer) && viewer.domainName === owner.domainName;
}
