'use client';
/**
 * Projects (GraphQL groups) and domains: lists, create, modify, deactivate; a project's members; the scaling groups
 * and storage hosts a project or domain may use. Domain admins manage their domain's projects; superadmins all,
 * and domains.
 */
import { ManagerError } from '@/components/api/problem';
import { graphql, graphqlMutation, parseJsonField, revalidateGraphql, useGraphql } from '@/components/api/graphql';

export interface Project {
  id: string;
  name: string;
  description: string | null;
  is_active: boolean;
  domain_name: string;
  resource_policy: string | null;
  scaling_groups: string[] | null;
  allowed_vfolder_hosts: string | null;
  created_at: string | null;
}

export interface Domain {
  name: string;
  description: string | null;
  is_active: boolean;
  scaling_groups: string[] | null;
  allowed_vfolder_hosts: string | null;
  created_at: string | null;
}

/** The host permissions a newly allowed storage host gets (every one: CONTRACT §5.3). */
export const ALL_HOST_PERMISSIONS = ['create-vfolder', 'modify-vfolder', 'delete-vfolder', 'mount-in-session', 'upload-file', 'download-file', 'invite-others', 'set-user-specific-permission'];

const PROJECT_FIELDS = 'id name description is_active domain_name resource_policy scaling_groups allowed_vfolder_hosts created_at';

/** Active and inactive projects of the caller's domain (admins) or every domain (superadmins). */
export function useProjects() {
  return useGraphql<{ groups: Project[] | null }>(`{ groups { ${PROJECT_FIELDS} } }`);
}

/** What the forms offer: scaling groups, project policies, storage hosts (from the domains' and projects' grants). */
export function useProjectChoices(superadmin: boolean) {
  const query = `{ scaling_groups { name } project_resource_policies { name } ${superadmin ? 'domains { name }' : 'domain { name }'} }`;
  return useGraphql<{ scaling_groups: { name: string }[] | null; project_resource_policies: { name: string }[] | null; domains?: { name: string }[] | null; domain?: { name: string } | null }>(query, undefined, { revalidateOnFocus: false });
}

export function hostsOf(json: string | null): string[] {
  return Object.keys(parseJsonField<Record<string, string[]>>(json, {})).sort();
}

/** Hosts as `allowed_vfolder_hosts`: kept hosts keep their permissions, new ones get every permission. */
export function hostGrants(previous: string | null, hosts: string[]): string {
  const before = parseJsonField<Record<string, string[]>>(previous, {});
  return JSON.stringify(Object.fromEntries(hosts.map((h) => [h, before[h] ?? ALL_HOST_PERMISSIONS])));
}

const refreshProjects = () => revalidateGraphql('groups');

export async function createProject(name: string, props: { domain_name: string; description: string; resource_policy?: string }): Promise<string> {
  const result = await graphqlMutation<{ ok: boolean; msg: string | null; group: { id: string } | null }>(
    'create_group',
    'mutation($name: String!, $props: GroupInput!) { create_group(name: $name, props: $props) { ok msg group { id } } }',
    { name, props },
  );
  await refreshProjects();
  return result.group?.id ?? '';
}

export async function modifyProject(id: string, props: Record<string, unknown>): Promise<void> {
  await graphqlMutation('modify_group', 'mutation($gid: UUID!, $props: ModifyGroupInput!) { modify_group(gid: $gid, props: $props) { ok msg } }', { gid: id, props });
  await Promise.all([refreshProjects(), revalidateGraphql('group_id')]);
}

/** Deactivates a project (GraphQL `delete_group`: Backend.AI's soft delete). */
export async function deactivateProject(id: string): Promise<void> {
  await graphqlMutation('delete_group', 'mutation($gid: UUID!) { delete_group(gid: $gid) { ok msg } }', { gid: id });
  await refreshProjects();
}

/** Which scaling groups a project may use. */
export async function setProjectScalingGroups(id: string, before: string[], after: string[]): Promise<void> {
  await syncScalingGroups({ arg: 'user_group', type: 'UUID!', id }, before, after);
  await refreshProjects();
}

/**
 * Associates the scaling groups `after` adds to `before` with a project (`user_group`) or domain, and disassociates
 * those it drops, one mutation each: the four mutations differ only in the verb and the target.
 */
async function syncScalingGroups(target: { arg: 'user_group' | 'domain'; type: 'UUID!' | 'String!'; id: string }, before: string[], after: string[]): Promise<void> {
  const change = (verb: 'associate' | 'disassociate', sg: string) => {
    const field = `${verb}_scaling_group_with_${target.arg}`;
    return graphqlMutation(field, `mutation($sg: String!, $t: ${target.type}) { ${field}(scaling_group: $sg, ${target.arg}: $t) { ok msg } }`, { sg, t: target.id });
  };
  for (const name of after.filter((n) => !before.includes(n))) await change('associate', name);
  for (const name of before.filter((n) => !after.includes(n))) await change('disassociate', name);
}

export interface Member {
  uuid: string;
  email: string;
  full_name: string | null;
}

export function useMembers(projectId: string | null) {
  return useGraphql<{ users: Member[] | null }>(projectId ? 'query($g: UUID) { users(group_id: $g) { uuid email full_name } }' : null, { g: projectId });
}

/** Adds a user, found by email, to a project. */
export async function addMember(projectId: string, email: string): Promise<void> {
  const found = await graphql<{ user: { uuid: string } | null }>('query($email: String) { user(email: $email) { uuid } }', { email });
  if (!found.user) throw new ManagerError(404, { title: 'No such user', detail: `No user ${email} within your reach.` });
  await modifyProject(projectId, { user_update_mode: 'add', user_uuids: [found.user.uuid] });
}

export async function removeMember(projectId: string, uuid: string): Promise<void> {
  await modifyProject(projectId, { user_update_mode: 'remove', user_uuids: [uuid] });
}

export function useDomains(enabled: boolean) {
  return useGraphql<{ domains: Domain[] | null }>(enabled ? '{ domains { name description is_active scaling_groups allowed_vfolder_hosts created_at } }' : null);
}

const refreshDomains = () => revalidateGraphql('domains');

export async function createDomain(name: string, description: string): Promise<void> {
  await graphqlMutation('create_domain', 'mutation($name: String!, $props: DomainInput!) { create_domain(name: $name, props: $props) { ok msg } }', { name, props: { description, is_active: true } });
  await refreshDomains();
}

export async function modifyDomain(name: string, props: Record<string, unknown>): Promise<void> {
  await graphqlMutation('modify_domain', 'mutation($name: String!, $props: ModifyDomainInput!) { modify_domain(name: $name, props: $props) { ok msg } }', { name, props });
  await refreshDomains();
}

/** Which scaling groups a domain may use. */
export async function setDomainScalingGroups(domain: string, before: string[], after: string[]): Promise<void> {
  await syncScalingGroups({ arg: 'domain', type: 'String!', id: domain }, before, after);
  await refreshDomains();
}
