/** Changing a container registry (superadmins); a new project list replaces the old one. */
import { randomUUID } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { noSuch, requireSuperadmin } from '../auth/privilege';
import type { ContainerRegistryTable } from '../db/schema';
import { given, oneOf } from '../admin/values';
import { REGISTRY_TYPES, checkUrl, loadRegistry, projectList, type RegistryProps } from './values';

export async function modifyContainerRegistry(app: App, principal: Principal, input: { hostname: string; props: RegistryProps }) {
  requireSuperadmin(principal);
  const current = await loadRegistry(app, input.hostname);
  if (!current) throw noSuch('container registry');
  const props = given(input.props);
  const set: Updateable<ContainerRegistryTable> = {};
  if (props.url) set.url = checkUrl(props.url);
  if (props.type) set.type = oneOf(props.type, REGISTRY_TYPES, 'type');
  if (props.username !== undefined) set.username = props.username;
  if (props.password !== undefined) set.password = props.password;
  if (props.ssl_verify !== undefined && props.ssl_verify !== null) set.ssl_verify = props.ssl_verify;
  if (props.is_global !== undefined && props.is_global !== null) set.is_global = props.is_global;
  await app.db.transaction().execute(async (trx) => {
    if (Object.keys(set).length) await trx.updateTable('container_registries').set(set).where('registry_name', '=', input.hostname).execute();
    if (props.project !== undefined) {
      // The project list is replaced: rows of dropped projects go, new projects get a row like the others.
      const wanted = projectList(props.project);
      const rows = await trx.selectFrom('container_registries').selectAll().where('registry_name', '=', input.hostname).execute();
      const template = rows[0];
      const drop = rows.filter((r) => !wanted.includes(r.project)).map((r) => r.id);
      if (drop.length) await trx.deleteFrom('container_registries').where('id', 'in', drop).execute();
      const have = new Set(rows.map((r) => r.project));
      const add = wanted.filter((p) => !have.has(p));
      if (add.length) {
        await trx
          .insertInto('container_registries')
          .values(
            add.map((project) => ({
              id: randomUUID(),
              url: template.url,
              registry_name: template.registry_name,
              type: template.type,
              project,
              username: template.username,
              password: template.password,
              ssl_verify: template.ssl_verify,
              is_global: template.is_global,
            })),
          )
          .execute();
      }
    }
  });
  return { container_registry: await loadRegistry(app, input.hostname) };
}
