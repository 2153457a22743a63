/**
 * Which domains, projects and keypairs may use a scaling group (superadmins). The three kinds are the same
 * operation on three association tables, so they share this file: associate (the scaling group and the other side
 * must exist; associating twice is refused), disassociate one (ok: false when there was none), disassociate all.
 */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { noSuch, requireSuperadmin } from '../auth/privilege';
import { Problem } from '../http/problem';
import { existingScalingGroup } from './values';

/** The association tables, the column naming the other side, and how to find that side. */
const KINDS = {
  domain: { table: 'sgroups_for_domains', column: 'domain', what: 'domain', source: { table: 'domains', key: 'name' } },
  project: { table: 'sgroups_for_groups', column: 'group_id', what: 'project', source: { table: 'groups', key: 'id' } },
  keypair: { table: 'sgroups_for_keypairs', column: 'access_key', what: 'keypair', source: { table: 'keypairs', key: 'access_key' } },
} as const;
export type AssociationKind = keyof typeof KINDS;

export async function associateScalingGroup(app: App, principal: Principal, kind: AssociationKind, scalingGroup: string, other: string): Promise<void> {
  requireSuperadmin(principal);
  await existingScalingGroup(app, scalingGroup);
  const { what, source } = KINDS[kind];
  const found = await app.db.selectFrom(source.table).select(source.key).where(source.key, '=', other).executeTakeFirst();
  if (!found) throw noSuch(what);
  const insert =
    kind === 'domain'
      ? app.db.insertInto('sgroups_for_domains').values({ scaling_group: scalingGroup, domain: other })
      : kind === 'project'
        ? app.db.insertInto('sgroups_for_groups').values({ scaling_group: scalingGroup, group_id: other })
        : app.db.insertInto('sgroups_for_keypairs').values({ scaling_group: scalingGroup, access_key: other });
  try {
    await insert.execute();
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new Problem('generic-bad-request', 'The scaling group is already associated.');
    throw error;
  }
}

export async function disassociateScalingGroup(app: App, principal: Principal, kind: AssociationKind, scalingGroup: string, other: string): Promise<void> {
  requireSuperadmin(principal);
  const { table, column } = KINDS[kind];
  const result = await app.db.deleteFrom(table).where(column, '=', other).where('scaling_group', '=', scalingGroup).executeTakeFirst();
  if (!Number(result.numDeletedRows)) throw new Problem('object-not-found', 'No such association.', undefined, { title: 'No such association.' });
}

export async function disassociateAllScalingGroups(app: App, principal: Principal, kind: Exclude<AssociationKind, 'keypair'>, other: string): Promise<void> {
  requireSuperadmin(principal);
  const { table, column } = KINDS[kind];
  await app.db.deleteFrom(table).where(column, '=', other).execute();
}
