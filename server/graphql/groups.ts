/**
 * Groups (projects): superadmins see all, domain admins their domain's, users the projects they belong to.
 * Superadmins and domain admins (within their domain) create, modify, deactivate and purge them.
 */
import type { SelectQueryBuilder } from 'kysely';
import { isSuperadmin } from '../auth/principal';
import type { Database, Group } from '../db/schema';
import { Problem } from '../http/problem';
import {
  adminDomainScope,
  adminSees,
  associatedScalingGroups,
  dbOf,
  isDomainAdmin,
  mutation,
  type GqlContext,
  type ResolverMap,
} from './context';
import { loadGroup, storedType, type GroupProps } from '../projects/values';
import { isProjectMember } from '../projects/membership';
import { createProject } from '../projects/create';
import { modifyProject } from '../projects/modify';
import { deleteProject } from '../projects/delete';
import { purgeProject } from '../projects/purge';
import { entityResults, resultTypes } from './sdl';

export const groupTypeDefs = /* GraphQL */ `
  type Group {
    id: UUID
    name: String
    description: String
    is_active: Boolean
    created_at: DateTime
    modified_at: DateTime
    domain_name: String
    total_resource_slots: JSONString
    allowed_vfolder_hosts: JSONString
    integration_id: String
    resource_policy: String
    "GENERAL or MODEL_STORE."
    type: String
    "Always an empty object: Berth keeps no per-project container registry."
    container_registry: JSONString
    scaling_groups: [String]
  }

  input GroupInput {
    type: String
    description: String
    is_active: Boolean
    domain_name: String!
    total_resource_slots: JSONString
    allowed_vfolder_hosts: JSONString
    integration_id: String
    resource_policy: String
    "Accepted for Backend.AI clients and ignored: Berth keeps no per-project container registry."
    container_registry: JSONString
  }

  input ModifyGroupInput {
    name: String
    description: String
    is_active: Boolean
    domain_name: String
    total_resource_slots: JSONString
    "add or remove: what to do with user_uuids."
    user_update_mode: String
    user_uuids: [String]
    allowed_vfolder_hosts: JSONString
    integration_id: String
    resource_policy: String
    "Accepted for Backend.AI clients and ignored: Berth keeps no per-project container registry."
    container_registry: JSONString
  }

  ${resultTypes({ ...entityResults('Group', 'group', ['Create', 'Modify']), DeleteGroup: '', PurgeGroup: '' })}

  extend type Query {
    group(id: UUID!, domain_name: String): Group
    groups(domain_name: String, is_active: Boolean, type: [String] = ["GENERAL"]): [Group]
    groups_by_name(name: String!, domain_name: String): [Group]
  }

  extend type Mutation {
    create_group(name: String!, props: GroupInput!): CreateGroup
    modify_group(gid: UUID!, props: ModifyGroupInput!): ModifyGroup
    "Deactivates the project."
    delete_group(gid: UUID!): DeleteGroup
    "Removes the project and its memberships."
    purge_group(gid: UUID!): PurgeGroup
  }
`;

/** The group, when the caller may see it. */
async function visibleGroup(ctx: GqlContext, id: string): Promise<Group | null> {
  const group = await loadGroup(ctx.app, id);
  if (!group) return null;
  if (adminSees(ctx, group.domain_name)) return group;
  return (await isProjectMember(ctx.app, { userId: ctx.principal.userId, projectId: id })) ? group : null;
}

/** Groups the caller may see, optionally within one domain. */
function scopedGroups(ctx: GqlContext, domainName: string | null | undefined): SelectQueryBuilder<Database, 'groups', object> {
  let q = dbOf(ctx).selectFrom('groups');
  const p = ctx.principal;
  if (isSuperadmin(p) || isDomainAdmin(p)) {
    const domain = adminDomainScope(ctx, domainName);
    if (domain) q = q.where('domain_name', '=', domain);
    return q;
  }
  if (domainName && domainName !== p.domainName) throw new Problem('generic-forbidden', 'You may read only projects of your own domain.');
  return q.where('id', 'in', (eb) => eb.selectFrom('association_groups_users').select('group_id').where('user_id', '=', p.userId));
}

export const groupResolvers: ResolverMap = {
  Query: {
    group: async (_root, args: { id: string; domain_name?: string | null }, ctx) => {
      const group = await visibleGroup(ctx, args.id);
      if (group && args.domain_name && group.domain_name !== args.domain_name) return null;
      return group;
    },
    groups: async (_root, args: { domain_name?: string | null; is_active?: boolean | null; type?: (string | null)[] | null }, ctx) => {
      let q = scopedGroups(ctx, args.domain_name);
      if (args.is_active !== undefined && args.is_active !== null) q = q.where('is_active', '=', args.is_active);
      if (args.type?.length) q = q.where('type', 'in', args.type.filter((t): t is string => Boolean(t)).map(storedType));
      return q.selectAll().orderBy('domain_name').orderBy('name').execute();
    },
    groups_by_name: async (_root, args: { name: string; domain_name?: string | null }, ctx) =>
      scopedGroups(ctx, args.domain_name).selectAll().where('name', '=', args.name).orderBy('domain_name').execute(),
  },
  Group: {
    type: (group: Group) => group.type.toUpperCase().replace(/-/g, '_'),
    container_registry: () => ({}),
    scaling_groups: (group: Group, _args, ctx) => associatedScalingGroups(ctx, 'project', group.id),
  },
  Mutation: {
    create_group: mutation((args: { name: string; props: GroupProps & { domain_name: string } }, ctx) => createProject(ctx.app, ctx.principal, args)),

    modify_group: mutation((args: { gid: string; props: GroupProps }, ctx) => modifyProject(ctx.app, ctx.principal, args)),

    delete_group: mutation((args: { gid: string }, ctx) => deleteProject(ctx.app, ctx.principal, args)),

    purge_group: mutation((args: { gid: string }, ctx) => purgeProject(ctx.app, ctx.principal, args)),
  },
};
