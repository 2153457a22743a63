/** Removing a container registry (superadmins); answers the registry as it was. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { noSuch, requireSuperadmin } from '../auth/privilege';
import { loadRegistry } from './values';

export async function deleteContainerRegistry(app: App, principal: Principal, input: { hostname: string }) {
  requireSuperadmin(principal);
  const current = await loadRegistry(app, input.hostname);
  if (!current) throw noSuch('container registry');
  await app.db.deleteFrom('container_registries').where('registry_name', '=', input.hostname).execute();
  return { container_registry: current };
}
