/**
 * Scaling groups and their associations with domains, projects and keypairs. Admins read them (domain admins the
 * associations within their domain, users those of their own domain, projects and keypairs); superadmins manage.
 */
import { isAdmin, isSuperadmin } from '../auth/principal';
import type { ScalingGroup } from '../db/schema';
import { Problem } from '../http/problem';
import { adminSees, dbOf, invalid, mutation, requireAdmin, type GqlContext, type ResolverMap } from './context';
import { loadGroup } from '../projects/values';
import { isProjectMember } from '../projects/membership';
import { canonicalUuid } from '../util/uuid';
import { loadScalingGroup, type ScalingGroupProps } from '../scaling-groups/values';
import { createScalingGroup } from '../scaling-groups/create';
import { modifyScalingGroup } from '../scaling-groups/modify';
import { deleteScalingGroup } from '../scaling-groups/delete';
import { associateScalingGroup, disassociateAllScalingGroups, disassociateScalingGroup } from '../scaling-groups/associations';
import { crudMutations, entityResults, plainResults, resultTypes } from './sdl';

export const scalingGroupTypeDefs = /* GraphQL */ `
  type ScalingGroup {
    name: String
    description: String
    is_active: Boolean
    is_public: Boolean
    created_at: DateTime
    wsproxy_addr: String
    "Shown to superadmins only."
    wsproxy_api_token: String
    driver: String
    driver_opts: JSONString
    "fifo, lifo or drf."
    scheduler: String
    scheduler_opts: JSONString
    use_host_network: Boolean
  }

  input CreateScalingGroupInput {
    description: String
    is_active: Boolean = true
    is_public: Boolean = true
    wsproxy_addr: String
    wsproxy_api_token: String
    driver: String = "static"
    driver_opts: JSONString
    scheduler: String = "fifo"
    scheduler_opts: JSONString
    use_host_network: Boolean
  }

  input ModifyScalingGroupInput {
    description: String
    is_active: Boolean
    is_public: Boolean
    wsproxy_addr: String
    wsproxy_api_token: String
    driver: String
    driver_opts: JSONString
    scheduler: String
    scheduler_opts: JSONString
    use_host_network: Boolean
  }

  ${resultTypes({
    ...entityResults('ScalingGroup', 'scaling_group', ['Create', 'Modify']),
    ...plainResults('DeleteScalingGroup', 'AssociateScalingGroupWithDomain', 'DisassociateScalingGroupWithDomain', 'DisassociateAllScalingGroupsWithDomain'),
    ...plainResults('AssociateScalingGroupWithUserGroup', 'DisassociateScalingGroupWithUserGroup', 'DisassociateAllScalingGroupsWithGroup'),
    ...plainResults('AssociateScalingGroupWithKeyPair', 'DisassociateScalingGroupWithKeyPair'),
  })}

  extend type Query {
    scaling_group(name: String): ScalingGroup
    scaling_groups(name: String, is_active: Boolean): [ScalingGroup]
    scaling_groups_for_domain(domain: String!, is_active: Boolean): [ScalingGroup]
    "user_group is the project's UUID."
    scaling_groups_for_user_group(user_group: String!, is_active: Boolean): [ScalingGroup]
    scaling_groups_for_keypair(access_key: String!, is_active: Boolean): [ScalingGroup]
  }

  extend type Mutation {
    ${crudMutations('scaling_group', 'ScalingGroup', 'name: String!')}
    associate_scaling_group_with_domain(domain: String!, scaling_group: String!): AssociateScalingGroupWithDomain
    disassociate_scaling_group_with_domain(domain: String!, scaling_group: String!): DisassociateScalingGroupWithDomain
    disassociate_all_scaling_groups_with_domain(domain: String!): DisassociateAllScalingGroupsWithDomain
    associate_scaling_group_with_user_group(scaling_group: String!, user_group: UUID!): AssociateScalingGroupWithUserGroup
    disassociate_scaling_group_with_user_group(scaling_group: String!, user_group: UUID!): DisassociateScalingGroupWithUserGroup
    disassociate_all_scaling_groups_with_group(user_group: UUID!): DisassociateAllScalingGroupsWithGroup
    associate_scaling_group_with_keypair(scaling_group: String!, access_key: String!): AssociateScalingGroupWithKeyPair
    disassociate_scaling_group_with_keypair(scaling_group: String!, access_key: String!): DisassociateScalingGroupWithKeyPair
  }
`;

function scalingGroupsFrom(ctx: GqlContext, isActive?: boolean | null) {
  let q = dbOf(ctx).selectFrom('scaling_groups').selectAll();
  if (isActive !== undefined && isActive !== null) q = q.where('is_active', '=', isActive);
  return q;
}

function forbiddenScope(): Problem {
  return new Problem('generic-forbidden', 'You may read only the scaling groups of your own domain, projects and keypairs.');
}

export const scalingGroupResolvers: ResolverMap = {
  Query: {
    scaling_group: async (_root, args: { name?: string | null }, ctx) => {
      requireAdmin(ctx);
      return args.name ? ((await loadScalingGroup(ctx.app, args.name)) ?? null) : null;
    },
    scaling_groups: (_root, args: { name?: string | null; is_active?: boolean | null }, ctx) => {
      requireAdmin(ctx);
      let q = scalingGroupsFrom(ctx, args.is_active);
      if (args.name) q = q.where('name', '=', args.name);
      return q.orderBy('name').execute();
    },
    scaling_groups_for_domain: (_root, args: { domain: string; is_active?: boolean | null }, ctx) => {
      if (!isSuperadmin(ctx.principal) && args.domain !== ctx.principal.domainName) throw forbiddenScope();
      return scalingGroupsFrom(ctx, args.is_active)
        .where('name', 'in', (eb) => eb.selectFrom('sgroups_for_domains').select('scaling_group').where('domain', '=', args.domain))
        .orderBy('name')
        .execute();
    },
    scaling_groups_for_user_group: async (_root, args: { user_group: string; is_active?: boolean | null }, ctx) => {
      const id = canonicalUuid(args.user_group);
      if (!id) throw invalid(`user_group: ${args.user_group} is not a project UUID.`);
      const group = await loadGroup(ctx.app, id);
      const visible = group && (adminSees(ctx, group.domain_name) || (!isAdmin(ctx.principal) && (await isProjectMember(ctx.app, { userId: ctx.principal.userId, projectId: id }))));
      if (!visible) return [];
      return scalingGroupsFrom(ctx, args.is_active)
        .where('name', 'in', (eb) => eb.selectFrom('sgroups_for_groups').select('scaling_group').where('group_id', '=', id))
        .orderBy('name')
        .execute();
    },
    scaling_groups_for_keypair: async (_root, args: { access_key: string; is_active?: boolean | null }, ctx) => {
      const owner = await dbOf(ctx)
        .selectFrom('keypairs as k')
        .innerJoin('users as u', 'u.uuid', 'k.user_id')
        .select(['u.uuid', 'u.domain_name'])
        .where('k.access_key', '=', args.access_key)
        .executeTakeFirst();
      if (!owner || !(owner.uuid === ctx.principal.userId || adminSees(ctx, owner.domain_name))) return [];
      return scalingGroupsFrom(ctx, args.is_active)
        .where('name', 'in', (eb) => eb.selectFrom('sgroups_for_keypairs').select('scaling_group').where('access_key', '=', args.access_key))
        .orderBy('name')
        .execute();
    },
  },
  ScalingGroup: {
    wsproxy_api_token: (sg: ScalingGroup, _args, ctx: GqlContext) => (isSuperadmin(ctx.principal) ? sg.wsproxy_api_token : null),
  },
  Mutation: {
    create_scaling_group: mutation((args: { name: string; props: ScalingGroupProps }, ctx) => createScalingGroup(ctx.app, ctx.principal, args)),
    modify_scaling_group: mutation((args: { name: string; props: ScalingGroupProps }, ctx) => modifyScalingGroup(ctx.app, ctx.principal, args)),
    delete_scaling_group: mutation((args: { name: string }, ctx) => deleteScalingGroup(ctx.app, ctx.principal, args)),

    associate_scaling_group_with_domain: mutation((args: { domain: string; scaling_group: string }, ctx) =>
      associateScalingGroup(ctx.app, ctx.principal, 'domain', args.scaling_group, args.domain),
    ),
    disassociate_scaling_group_with_domain: mutation((args: { domain: string; scaling_group: string }, ctx) =>
      disassociateScalingGroup(ctx.app, ctx.principal, 'domain', args.scaling_group, args.domain),
    ),
    disassociate_all_scaling_groups_with_domain: mutation((args: { domain: string }, ctx) => disassociateAllScalingGroups(ctx.app, ctx.principal, 'domain', args.domain)),

    associate_scaling_group_with_user_group: mutation((args: { scaling_group: string; user_group: string }, ctx) =>
      associateScalingGroup(ctx.app, ctx.principal, 'project', args.scaling_group, args.user_group),
    ),
    disassociate_scaling_group_with_user_group: mutation((args: { scaling_group: string; user_group: string }, ctx) =>
      disassociateScalingGroup(ctx.app, ctx.principal, 'project', args.scaling_group, args.user_group),
    ),
    disassociate_all_scaling_groups_with_group: mutation((args: { user_group: string }, ctx) => disassociateAllScalingGroups(ctx.app, ctx.principal, 'project', args.user_group)),

    associate_scaling_group_with_keypair: mutation((args: { scaling_group: string; access_key: string }, ctx) =>
      associateScalingGroup(ctx.app, ctx.principal, 'keypair', args.scaling_group, args.access_key),
    ),
    disassociate_scaling_group_with_keypair: mutation((args: { scaling_group: string; access_key: string }, ctx) =>
      disassociateScalingGroup(ctx.app, ctx.principal, 'keypair', args.scaling_group, args.access_key),
    ),
  },
};
