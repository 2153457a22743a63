/**
 * The one ownership check for model services: the caller reaches a service by id if it is theirs (whichever of
 * their keypairs made it) or if they may see its owner's resources (their domain's for domain admins; any for
 * superadmins: the rule sessions follow). Anything
 * else, and a destroyed service, is 404 exactly like a service that does not exist.
 */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { canSee } from '../auth/delegation';
import type { Endpoint } from '../db/schema';
import { notFound } from '../http/problem';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

export function toServiceUuid(reference: string): string | null {
  if (!UUID.test(reference)) return null;
  const hex = reference.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export async function findService(app: App, caller: Principal, reference: string): Promise<Endpoint> {
  const id = toServiceUuid(reference);
  const endpoint = id
    ? await app.db.selectFrom('endpoints').selectAll().where('id', '=', id).where('lifecycle_stage', '<>', 'destroyed').executeTakeFirst()
    : undefined;
  const mine = endpoint?.session_owner === caller.userId;
  if (!endpoint || !(mine || canSee(caller, { accessKey: endpoint.access_key, domainName: endpoint.domain_name }))) {
    throw notFound('No such model service.', `No model service identified by "${reference}".`);
  }
  return endpoint;
}
