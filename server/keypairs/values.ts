/** A keypair with its owner's columns, who may manage it, and the checks its operations share. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { adminSees, noSuch, requireAdmin } from '../auth/privilege';
import { checkManaged } from '../accounts/managed-users';

export function keypairsFrom(app: App) {
  return app.db.selectFrom('keypairs as k').innerJoin('users as u', 'u.uuid', 'k.user_id');
}

export function selectKeypair<Q extends ReturnType<typeof keypairsFrom>>(qb: Q) {
  return qb.select([
    'k.access_key',
    'k.secret_key',
    'k.user_id',
    'k.is_active',
    'k.is_admin',
    'k.resource_policy',
    'k.created_at',
    'k.modified_at',
    'k.last_used',
    'k.rate_limit',
    'k.num_queries',
    'k.ssh_public_key',
    'u.email',
    'u.full_name',
    'u.domain_name',
    'u.role',
  ]);
}

export type KeypairRow = Awaited<ReturnType<ReturnType<typeof selectKeypair>['executeTakeFirstOrThrow']>> & { revealed?: boolean };

export function loadKeypair(app: App, accessKey: string): Promise<KeypairRow | undefined> {
  return selectKeypair(keypairsFrom(app)).where('k.access_key', '=', accessKey).executeTakeFirst();
}

/** The keypair a management operation targets, within the caller's reach. */
export async function managedKeypair(app: App, principal: Principal, accessKey: string): Promise<KeypairRow> {
  requireAdmin(principal);
  const row = await loadKeypair(app, accessKey);
  if (!row || !adminSees(principal, row.domain_name)) throw noSuch('keypair');
  checkManaged(principal, row);
  return row;
}

export interface KeypairProps {
  is_active?: boolean | null;
  is_admin?: boolean | null;
  resource_policy?: string | null;
  rate_limit?: number | null;
}

