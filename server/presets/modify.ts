/** Changing a resource preset (superadmins), found by id or by a name that names one. */
import type { Updateable } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireSuperadmin } from '../auth/privilege';
import { json } from '../db';
import type { ResourcePresetTable } from '../db/schema';
import { badRequest as invalid } from '../http/problem';
import { checkName, given, normaliseSlots } from '../admin/values';
import { checkScalingGroup, checkUnique, findPreset, sharedMemory, targetPreset, type PresetProps } from './values';

export async function modifyPreset(app: App, principal: Principal, input: { name?: string | null; id?: string | null; props: PresetProps }) {
  requireSuperadmin(principal);
  const preset = await targetPreset(app, input);
  const props = given(input.props);
  const set: Updateable<ResourcePresetTable> = {};
  if (props.name) set.name = checkName(props.name, 'resource preset');
  if (props.resource_slots !== undefined && props.resource_slots !== null) {
    const slots = normaliseSlots(props.resource_slots, 'resource_slots');
    if (!Object.keys(slots).length) throw invalid('resource_slots must name at least one slot.');
    set.resource_slots = json(slots);
  }
  if (props.shared_memory !== undefined) set.shared_memory = sharedMemory(props.shared_memory);
  if (props.scaling_group_name !== undefined) {
    await checkScalingGroup(app, props.scaling_group_name);
    set.scaling_group_name = props.scaling_group_name;
  }
  await checkUnique(app, set.name ?? preset.name, set.scaling_group_name !== undefined ? set.scaling_group_name : preset.scaling_group_name, preset.id);
  if (Object.keys(set).length) await app.db.updateTable('resource_presets').set(set).where('id', '=', preset.id).execute();
  return { resource_preset: await findPreset(app, { id: preset.id }) };
}
