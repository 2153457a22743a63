/** Creating a scaling group (superadmins). */
import type { Insertable } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireSuperadmin } from '../auth/privilege';
import { json } from '../db';
import type { ScalingGroupTable } from '../db/schema';
import { Problem } from '../http/problem';
import { checkName } from '../admin/values';
import { loadScalingGroup, scalingGroupValues, type ScalingGroupProps } from './values';

export async function createScalingGroup(app: App, principal: Principal, input: { name: string; props: ScalingGroupProps }) {
  requireSuperadmin(principal);
  const name = checkName(input.name, 'scaling group');
  const values = scalingGroupValues(input.props);
  if (await loadScalingGroup(app, name)) throw new Problem('generic-bad-request', `Scaling group ${name} already exists.`);
  await app.db
    .insertInto('scaling_groups')
    .values({ driver_opts: json({}), scheduler_opts: json({}), ...values, name } as Insertable<ScalingGroupTable>)
    .execute();
  return { scaling_group: await loadScalingGroup(app, name) };
}
