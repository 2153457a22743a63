/**
 * Resource presets as clients see them: slot amounts as decimal strings, restricted to the slots active in the
 * cluster (a preset naming an accelerator no agent has would only confuse the launcher).
 */
import type { App } from '../app';
import type { ResourcePreset } from '../db/schema';
import { activeSlots, formatAmount, toAmounts, type Amounts } from './slots';

export interface PresetView {
  name: string;
  resource_slots: Record<string, string>;
  shared_memory: string | null;
}

/** A preset with its amounts read, for fitting checks. */
export interface LoadedPreset {
  view: PresetView;
  amounts: Amounts;
}

/** Presets that apply everywhere, plus those of the named scaling groups; smallest first. */
export async function loadPresets(app: App, slots: Iterable<string>, scalingGroups?: string[]): Promise<LoadedPreset[]> {
  let query = app.db.selectFrom('resource_presets').selectAll();
  if (scalingGroups !== undefined) {
    query = query.where((eb) =>
      scalingGroups.length
        ? eb.or([eb('scaling_group_name', 'is', null), eb('scaling_group_name', 'in', scalingGroups)])
        : eb('scaling_group_name', 'is', null),
    );
  }
  const rows = await query.execute();
  const active = [...slots];
  const loaded = rows.map((row) => load(row, active));
  return loaded.sort(bySize);
}

function load(row: ResourcePreset, active: string[]): LoadedPreset {
  const all = toAmounts(row.resource_slots);
  const amounts: Amounts = {};
  const resourceSlots: Record<string, string> = {};
  for (const name of active) {
    if (all[name] === undefined) continue;
    amounts[name] = all[name];
    resourceSlots[name] = formatAmount(all[name]);
  }
  const sharedMemory = row.shared_memory === null || row.shared_memory === undefined ? null : formatAmount(Number(row.shared_memory));
  return { view: { name: row.name, resource_slots: resourceSlots, shared_memory: sharedMemory }, amounts };
}

/** Orders presets the way a launcher lists them: by CPU, then memory, then name. */
function bySize(a: LoadedPreset, b: LoadedPreset): number {
  return (a.amounts.cpu ?? 0) - (b.amounts.cpu ?? 0) || (a.amounts.mem ?? 0) - (b.amounts.mem ?? 0) || a.view.name.localeCompare(b.view.name);
}

/** `GET /resource/presets`: every preset. */
export async function listPresets(app: App): Promise<{ presets: PresetView[] }> {
  const slots = Object.keys(await activeSlots(app));
  const presets = await loadPresets(app, slots);
  return { presets: presets.map((p) => p.view) };
}
