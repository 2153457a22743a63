/** Changing a domain (superadmins); a new name moves its projects, users and scaling-group associations onto it. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { noSuch, requireSuperadmin } from '../auth/privilege';
import { json } from '../db';
import type { Updateable } from 'kysely';
import type { DomainTable } from '../db/schema';
import { Problem } from '../http/problem';
import { checkName, given, hostPermissions, normaliseSlots } from '../admin/values';
import { loadDomain, registries, type DomainProps } from './values';

export async function modifyDomain(app: App, principal: Principal, input: { name: string; props: DomainProps }) {
  requireSuperadmin(principal);
  const current = await loadDomain(app, input.name);
  if (!current) throw noSuch('domain');
  const props = given(input.props);
  const set: Updateable<DomainTable> = { modified_at: new Date() };
  if (props.description !== undefined) set.description = props.description ?? '';
  if (props.is_active !== undefined && props.is_active !== null) set.is_active = props.is_active;
  if (props.total_resource_slots !== undefined) set.total_resource_slots = json(normaliseSlots(props.total_resource_slots, 'total_resource_slots'));
  if (props.allowed_vfolder_hosts !== undefined) set.allowed_vfolder_hosts = json(hostPermissions(props.allowed_vfolder_hosts, 'allowed_vfolder_hosts'));
  if (props.allowed_docker_registries !== undefined) set.allowed_docker_registries = json(registries(props.allowed_docker_registries));
  if (props.integration_id !== undefined) set.integration_id = props.integration_id;
  const newName = props.name && props.name !== input.name ? checkName(props.name, 'domain') : null;
  if (!newName) {
    await app.db.updateTable('domains').set(set).where('name', '=', input.name).execute();
    return { domain: await loadDomain(app, input.name) };
  }
  if (await loadDomain(app, newName)) throw new Problem('generic-bad-request', `Domain ${newName} already exists.`);
  // A rename moves what refers to the domain onto a copy of it, then drops the old row.
  await app.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('domains')
      .values({
        name: newName,
        description: current.description,
        is_active: current.is_active,
        created_at: current.created_at,
        total_resource_slots: json(current.total_resource_slots),
        allowed_vfolder_hosts: json(current.allowed_vfolder_hosts),
        allowed_docker_registries: json(current.allowed_docker_registries),
        integration_id: current.integration_id,
        dotfiles: json(current.dotfiles),
      })
      .execute();
    await trx.updateTable('domains').set(set).where('name', '=', newName).execute();
    await trx.updateTable('groups').set({ domain_name: newName }).where('domain_name', '=', input.name).execute();
    await trx.updateTable('users').set({ domain_name: newName }).where('domain_name', '=', input.name).execute();
    await trx.updateTable('sgroups_for_domains').set({ domain: newName }).where('domain', '=', input.name).execute();
    await trx.deleteFrom('domains').where('name', '=', input.name).execute();
  });
  app.keypairs.invalidate();
  return { domain: await loadDomain(app, newName) };
}
