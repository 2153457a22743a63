/** Creating a domain (superadmins). */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireSuperadmin } from '../auth/privilege';
import { json } from '../db';
import { Problem } from '../http/problem';
import { checkName, hostPermissions, normaliseSlots } from '../admin/values';
import { loadDomain, registries, type DomainProps } from './values';

export async function createDomain(app: App, principal: Principal, input: { name: string; props: DomainProps }) {
  requireSuperadmin(principal);
  const name = checkName(input.name, 'domain');
  const props = input.props;
  if (await loadDomain(app, name)) throw new Problem('generic-bad-request', `Domain ${name} already exists.`);
  await app.db
    .insertInto('domains')
    .values({
      name,
      description: props.description ?? '',
      is_active: props.is_active ?? true,
      total_resource_slots: json(normaliseSlots(props.total_resource_slots, 'total_resource_slots')),
      allowed_vfolder_hosts: json(hostPermissions(props.allowed_vfolder_hosts, 'allowed_vfolder_hosts')),
      allowed_docker_registries: json(registries(props.allowed_docker_registries)),
      integration_id: props.integration_id ?? null,
      dotfiles: json([]),
    })
    .execute();
  return { domain: await loadDomain(app, name) };
}
