/** Resource presets as stored, how an operation finds the one it targets, and the checks they share. */
import type { App } from '../app';
import { noSuch } from '../auth/privilege';
import type { ResourcePreset } from '../db/schema';
import { Problem, badRequest as invalid } from '../http/problem';
import { parseBinarySize } from '../admin/values';

export function presetsFrom(app: App) {
  return app.db.selectFrom('resource_presets').selectAll();
}

/** A preset by id, or by name (global presets first). */
export async function findPreset(app: App, args: { name?: string | null; id?: string | null }): Promise<ResourcePreset | undefined> {
  if (args.id) return presetsFrom(app).where('id', '=', args.id).executeTakeFirst();
  if (!args.name) return undefined;
  const rows = await presetsFrom(app).where('name', '=', args.name).execute();
  return rows.find((r) => r.scaling_group_name === null) ?? rows[0];
}

/** The preset a mutation targets: by id, or by a name that names exactly one. */
export async function targetPreset(app: App, args: { name?: string | null; id?: string | null }): Promise<ResourcePreset> {
  if (!args.id && !args.name) throw invalid('Give the preset name or id.');
  if (!args.id) {
    const rows = await presetsFrom(app).where('name', '=', args.name!).execute();
    if (rows.length > 1) throw invalid(`Several presets are named ${args.name}; give the id.`);
  }
  const preset = await findPreset(app, args);
  if (!preset) throw noSuch('resource preset');
  return preset;
}

export async function checkUnique(app: App, name: string, scalingGroup: string | null, except?: string): Promise<void> {
  let q = presetsFrom(app).where('name', '=', name);
  q = scalingGroup === null ? q.where('scaling_group_name', 'is', null) : q.where('scaling_group_name', '=', scalingGroup);
  if (except) q = q.where('id', '<>', except);
  if (await q.executeTakeFirst()) throw new Problem('generic-bad-request', `Resource preset ${name} already exists.`);
}

export async function checkScalingGroup(app: App, name: string | null): Promise<void> {
  if (name === null) return;
  const found = await app.db.selectFrom('scaling_groups').select('name').where('name', '=', name).executeTakeFirst();
  if (!found) throw invalid(`No such scaling group: ${name}`);
}

export function sharedMemory(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const bytes = parseBinarySize(value);
  if (bytes === null) throw invalid('shared_memory must be a byte size such as 1073741824 or 1g.');
  return bytes;
}

export interface PresetProps {
  name?: string | null;
  resource_slots?: unknown;
  shared_memory?: string | null;
  scaling_group_name?: string | null;
}

