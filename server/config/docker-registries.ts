/**
 * `GET /config/docker-registries`: registry name → URL. A registry bound to a project is keyed
 * `<project>/<registry>` (CONTRACT §12, the 24.09 form), so two projects' entries of one registry stay apart.
 */
import type { App } from '../app';

export async function dockerRegistries(app: App): Promise<Record<string, string>> {
  const rows = await app.db.selectFrom('container_registries').select(['registry_name', 'project', 'url']).orderBy('registry_name').orderBy('project').execute();
  const out: Record<string, string> = {};
  for (const row of rows) out[row.project ? `${row.project}/${row.registry_name}` : row.registry_name] = row.url;
  return out;
}
