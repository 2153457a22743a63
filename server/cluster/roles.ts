/**
 * What one Berth process does (BERTH_ROLES, docs/architecture.md "Scale-out"). Every role by default; any number
 * of processes with any roles may share one PostgreSQL.
 *  - manager: the signed API; web: the dashboard; apps: the app proxy;
 *  - agent: this machine's local sandbox backend (its agent row and heartbeat) and the Slurm/Docker backends;
 *  - scheduler: competes for the singletons (scheduler, service scaler, idle culler, clone recovery, ...).
 */
export const ROLES = ['manager', 'web', 'apps', 'agent', 'scheduler'] as const;
export type Role = (typeof ROLES)[number];

/**
 * A list naming listeners only (how BERTH_ROLES was written before the `agent` and `scheduler` roles existed)
 * keeps both, as it always did; a list naming either of them is exact.
 */
export function effectiveRoles(roles: readonly Role[]): Role[] {
  if (roles.includes('agent') || roles.includes('scheduler')) return [...roles];
  return [...roles, 'agent', 'scheduler'];
}

/** The roles a BERTH_ROLES value names; throws on an unknown one (a typo must not silently drop a role). */
export function parseRoles(value: string | undefined): Role[] {
  if (value === undefined || value.trim() === '') return [...ROLES];
  const roles = value.split(',').map((r) => r.trim()).filter(Boolean);
  for (const role of roles) {
    if (!(ROLES as readonly string[]).includes(role)) throw new Error(`BERTH_ROLES: unknown role "${role}" (known: ${ROLES.join(', ')})`);
  }
  return effectiveRoles([...new Set(roles)] as Role[]);
}
