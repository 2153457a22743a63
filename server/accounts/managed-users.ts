/**
 * What every admin operation on a user checks: the user is within the caller's reach (a domain admin's own domain,
 * never a superadmin unless the caller is one), the role and status are known ones, the resource policy and the
 * projects exist.
 */
import type { App } from '../app';
import { isSuperadmin, type Principal, type UserRole } from '../auth/principal';
import { adminSees, noSuch, requireAdmin } from '../auth/privilege';
import type { User } from '../db/schema';
import { Problem, badRequest as invalid } from '../http/problem';
import { oneOf } from '../admin/values';
import { canonicalUuid } from '../util/uuid';

export const ROLES: readonly UserRole[] = ['superadmin', 'admin', 'user', 'monitor'];
export const STATUSES = ['active', 'inactive', 'deleted', 'before-verification'] as const;

export function loadUserBy(app: App, column: 'uuid' | 'email', value: string): Promise<User | undefined> {
  return app.db.selectFrom('users').selectAll().where(column, '=', value).executeTakeFirst();
}

/** The user a management operation targets: outside a domain admin's reach reads as missing; superadmins are untouchable for them. */
export async function managedUser(app: App, principal: Principal, email: string): Promise<User> {
  requireAdmin(principal);
  return checkManaged(principal, await loadUserBy(app, 'email', email));
}

/** Refuses a user outside the caller's reach: missing or in another domain reads as not found. */
export function checkManaged<T extends { domain_name: string; role: string }>(principal: Principal, user: T | undefined): T {
  requireAdmin(principal);
  if (!user || !adminSees(principal, user.domain_name)) throw noSuch('user');
  if (user.role === 'superadmin' && !isSuperadmin(principal)) {
    throw new Problem('insufficient-privilege', 'Only superadmins may manage a superadmin.');
  }
  return user;
}

export function checkRole(principal: Principal, role: string): UserRole {
  const valid = oneOf(role, ROLES, 'role');
  if (valid === 'superadmin' && !isSuperadmin(principal)) throw new Problem('insufficient-privilege', 'Only superadmins may grant the superadmin role.');
  return valid;
}

export function statusFrom(status: string | null | undefined, isActive: boolean | null | undefined): string | undefined {
  if (status) return oneOf(status, STATUSES, 'status');
  if (isActive === true) return 'active';
  if (isActive === false) return 'inactive';
  return undefined;
}

/** Project ids, checked to be projects of the domain. */
export async function groupIdsIn(app: App, ids: (string | null)[], domain: string): Promise<string[]> {
  const uuids = [
    ...new Set(
      ids.map((id) => {
        const uuid = id ? canonicalUuid(id) : null;
        if (!uuid) throw invalid(`group_ids: ${id} is not a UUID.`);
        return uuid;
      }),
    ),
  ];
  if (!uuids.length) return [];
  const found = await app.db.selectFrom('groups').select('id').where('id', 'in', uuids).where('domain_name', '=', domain).execute();
  if (found.length !== uuids.length) throw invalid(`group_ids: some projects do not exist in domain ${domain}.`);
  return uuids;
}

export interface UserProps {
  username?: string | null;
  password?: string | null;
  need_password_change?: boolean | null;
  full_name?: string | null;
  description?: string | null;
  is_active?: boolean | null;
  status?: string | null;
  domain_name?: string | null;
  role?: string | null;
  group_ids?: (string | null)[] | null;
  allowed_client_ip?: (string | null)[] | null;
  resource_policy?: string | null;
  main_access_key?: string | null;
}

