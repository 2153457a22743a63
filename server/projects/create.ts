/** Creating a project in a domain the caller manages. */
import { randomUUID } from 'node:crypto';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { assertManagesDomain } from '../auth/privilege';
import { json } from '../db';
import { Problem, badRequest as invalid } from '../http/problem';
import { hostPermissions, normaliseSlots } from '../admin/values';
import { loadDomain } from '../domains/values';
import { loadGroup, projectIdByName, storedType, type GroupProps } from './values';
import { checkPolicyExists } from '../resource-policies/values';

export async function createProject(app: App, principal: Principal, input: { name: string; props: GroupProps & { domain_name: string } }) {
  const props = input.props;
  assertManagesDomain(principal, props.domain_name);
  const name = input.name.trim();
  if (!name || name.length > 64) throw invalid('The project name must be 1 to 64 characters.');
  if (!(await loadDomain(app, props.domain_name))) throw invalid(`No such domain: ${props.domain_name}`);
  const policy = props.resource_policy ?? 'default';
  await checkPolicyExists(app, 'project_resource_policies', policy);
  if (await projectIdByName(app, props.domain_name, name)) throw new Problem('generic-bad-request', `Project ${name} already exists in domain ${props.domain_name}.`);
  const id = randomUUID();
  await app.db
    .insertInto('groups')
    .values({
      id,
      name,
      description: props.description ?? '',
      is_active: props.is_active ?? true,
      domain_name: props.domain_name,
      total_resource_slots: json(normaliseSlots(props.total_resource_slots, 'total_resource_slots')),
      allowed_vfolder_hosts: json(hostPermissions(props.allowed_vfolder_hosts, 'allowed_vfolder_hosts')),
      integration_id: props.integration_id ?? null,
      resource_policy: policy,
      type: storedType(props.type ?? 'GENERAL'),
      dotfiles: json([]),
    })
    .execute();
  return { group: await loadGroup(app, id) };
}
