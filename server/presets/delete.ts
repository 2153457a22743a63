/** Deleting a resource preset (superadmins); answers the preset as it was. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireSuperadmin } from '../auth/privilege';
import { targetPreset } from './values';

export async function deletePreset(app: App, principal: Principal, input: { name?: string | null; id?: string | null }) {
  requireSuperadmin(principal);
  const preset = await targetPreset(app, input);
  await app.db.deleteFrom('resource_presets').where('id', '=', preset.id).execute();
  return { resource_preset: preset };
}
