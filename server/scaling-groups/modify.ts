/** Changing a scaling group's settings (superadmins). */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireSuperadmin } from '../auth/privilege';
import { existingScalingGroup, loadScalingGroup, scalingGroupValues, type ScalingGroupProps } from './values';

export async function modifyScalingGroup(app: App, principal: Principal, input: { name: string; props: ScalingGroupProps }) {
  requireSuperadmin(principal);
  await existingScalingGroup(app, input.name);
  const set = scalingGroupValues(input.props);
  if (Object.keys(set).length) await app.db.updateTable('scaling_groups').set(set).where('name', '=', input.name).execute();
  return { scaling_group: await loadScalingGroup(app, input.name) };
}
