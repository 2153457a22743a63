/** Creating a resource preset (superadmins), for every scaling group or one. */
import { randomUUID } from 'node:crypto';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireSuperadmin } from '../auth/privilege';
import { json } from '../db';
import { badRequest as invalid } from '../http/problem';
import { checkName, normaliseSlots } from '../admin/values';
import { checkScalingGroup, checkUnique, findPreset, sharedMemory, type PresetProps } from './values';

export async function createPreset(app: App, principal: Principal, input: { name: string; props: PresetProps }) {
  requireSuperadmin(principal);
  const name = checkName(input.name, 'resource preset');
  const slots = normaliseSlots(input.props.resource_slots, 'resource_slots');
  if (!Object.keys(slots).length) throw invalid('resource_slots must name at least one slot.');
  const scalingGroup = input.props.scaling_group_name ?? null;
  await checkScalingGroup(app, scalingGroup);
  await checkUnique(app, name, scalingGroup);
  const id = randomUUID();
  await app.db
    .insertInto('resource_presets')
    .values({ id, name, resource_slots: json(slots), shared_memory: sharedMemory(input.props.shared_memory), scaling_group_name: scalingGroup })
    .execute();
  return { resource_preset: await findPreset(app, { id }) };
}
