/** Adding a container registry (superadmins): one row per project it serves. */
import { randomUUID } from 'node:crypto';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireSuperadmin } from '../auth/privilege';
import { Problem } from '../http/problem';
import { checkName, oneOf } from '../admin/values';
import { REGISTRY_TYPES, checkUrl, loadRegistry, projectList, type RegistryProps } from './values';

export async function createContainerRegistry(app: App, principal: Principal, input: { hostname: string; props: RegistryProps & { url: string; type: string } }) {
  requireSuperadmin(principal);
  const hostname = checkName(input.hostname, 'registry');
  const props = input.props;
  if (await loadRegistry(app, hostname)) throw new Problem('generic-bad-request', `Container registry ${hostname} already exists.`);
  const base = {
    url: checkUrl(props.url),
    registry_name: hostname,
    type: oneOf(props.type, REGISTRY_TYPES, 'type'),
    username: props.username ?? null,
    password: props.password ?? null,
    ssl_verify: props.ssl_verify ?? true,
    is_global: props.is_global ?? true,
  };
  await app.db
    .insertInto('container_registries')
    .values(projectList(props.project).map((project) => ({ ...base, id: randomUUID(), project })))
    .execute();
  return { container_registry: await loadRegistry(app, hostname) };
}
