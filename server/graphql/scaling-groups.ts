/**
 * Scaling groups and their associations with domains, projects and keypairs. Admins read them (domain admins the
 * associations within their domain, users those of their own domain, projects and keypairs); superadmins manage.
 */
import type { Insertable, Updateable } from 'kysely';
import { isAdmin, isSuperadmin } from '../auth/principal';
import { json } from '../db';
import type { ScalingGroup, ScalingGroupTable } from '../db/schema';
import { Problem } from '../http/problem';
import { adminSees, dbOf, given, invalid, mutation, notFound, requireAdmin, requireSuperadmin, type GqlContext, type ResolverMap } from './context';
import { isMember, loadGroup } from './groups';
import { canonicalUuid } from '../util/uuid';
import { checkName, jsonObject, oneOf } from './values';

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

  type CreateScalingGroup { ok: Boolean, msg: String, scaling_group: ScalingGroup }
  type ModifyScalingGroup { ok: Boolean, msg: String, scaling_group: ScalingGroup }
  type DeleteScalingGroup { ok: Boolean, msg: String }
  type AssociateScalingGroupWithDomain { ok: Boolean, msg: String }
  type DisassociateScalingGroupWithDomain { ok: Boolean, msg: String }
  type DisassociateAllScalingGroupsWithDomain { ok: Boolean, msg: String }
  type AssociateScalingGroupWithUserGroup { ok: Boolean, msg: String }
  type DisassociateScalingGroupWithUserGroup { ok: Boolean, msg: String }
  type DisassociateAllScalingGroupsWithGroup { ok: Boolean, msg: String }
  type AssociateScalingGroupWithKeyPair { ok: Boolean, msg: String }
  type DisassociateScalingGroupWithKeyPair { ok: Boolean, msg: String }

  extend type Query {
    scaling_group(name: String): ScalingGroup
    scaling_groups(name: String, is_active: Boolean): [ScalingGroup]
    scaling_groups_for_domain(domain: String!, is_active: Boolean): [ScalingGroup]
    "user_group is the project's UUID."
    scaling_groups_for_user_group(user_group: String!, is_active: Boolean): [ScalingGroup]
    scaling_groups_for_keypair(access_key: String!, is_active: Boolean): [ScalingGroup]
  }

  extend type Mutation {
    create_scaling_group(name: String!, props: CreateScalingGroupInput!): CreateScalingGroup
    modify_scaling_group(name: String!, props: ModifyScalingGroupInput!): ModifyScalingGroup
    delete_scaling_group(name: String!): DeleteScalingGroup
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

const SCHEDULERS = ['fifo', 'lifo', 'drf'] as const;

function scalingGroupsFrom(ctx: GqlContext, isActive?: boolean | null) {
  let q = dbOf(ctx).selectFrom('scaling_groups').selectAll();
  if (isActive !== undefined && isActive !== null) q = q.where('is_active', '=', isActive);
  return q;
}

function loadScalingGroup(ctx: GqlContext, name: string): Promise<ScalingGroup | undefined> {
  return scalingGroupsFrom(ctx).where('name', '=', name).executeTakeFirst();
}

async function existingScalingGroup(ctx: GqlContext, name: string): Promise<ScalingGroup> {
  const found = await loadScalingGroup(ctx, name);
  if (!found) throw notFound('scaling group');
  return found;
}

interface ScalingGroupProps {
  description?: string | null;
  is_active?: boolean | null;
  is_public?: boolean | null;
  wsproxy_addr?: string | null;
  wsproxy_api_token?: string | null;
  driver?: string | null;
  driver_opts?: unknown;
  scheduler?: string | null;
  scheduler_opts?: unknown;
  use_host_network?: boolean | null;
}

function scalingGroupValues(raw: ScalingGroupProps): Updateable<ScalingGroupTable> {
  const props = given(raw);
  const set: Updateable<ScalingGroupTable> = {};
  if (props.description !== undefined) set.description = props.description ?? '';
  if (props.is_active !== undefined && props.is_active !== null) set.is_active = props.is_active;
  if (props.is_public !== undefined && props.is_public !== null) set.is_public = props.is_public;
  if (props.wsproxy_addr !== undefined) set.wsproxy_addr = props.wsproxy_addr;
  if (props.wsproxy_api_token !== undefined) set.wsproxy_api_token = props.wsproxy_api_token;
  if (props.driver) set.driver = props.driver;
  if (props.driver_opts !== undefined) set.driver_opts = json(jsonObject(props.driver_opts, 'driver_opts'));
  if (props.scheduler) set.scheduler = oneOf(props.scheduler.toLowerCase(), SCHEDULERS, 'scheduler');
  if (props.scheduler_opts !== undefined) set.scheduler_opts = json(jsonObject(props.scheduler_opts, 'scheduler_opts'));
  if (props.use_host_network !== undefined && props.use_host_network !== null) set.use_host_network = props.use_host_network;
  return set;
}

function forbiddenScope(): Problem {
  return new Problem('generic-forbidden', 'You may read only the scaling groups of your own domain, projects and keypairs.');
}

/** Whether a delete removed anything; an association that was not there is reported as ok: false. */
function removedAny(result: { numDeletedRows: bigint }): void {
  if (!Number(result.numDeletedRows)) throw new Problem('object-not-found', 'No such association.', undefined, { title: 'No such association.' });
}

async function associated(insert: () => Promise<unknown>): Promise<void> {
  try {
    await insert();
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new Problem('generic-bad-request', 'The scaling group is already associated.');
    throw error;
  }
}

export const scalingGroupResolvers: ResolverMap = {
  Query: {
    scaling_group: async (_root, args: { name?: string | null }, ctx) => {
      requireAdmin(ctx);
      return args.name ? ((await loadScalingGroup(ctx, args.name)) ?? null) : null;
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
      const group = await loadGroup(ctx, id);
      const visible = group && (adminSees(ctx, group.domain_name) || (!isAdmin(ctx.principal) && (await isMember(ctx, id, ctx.principal.userId))));
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
    create_scaling_group: mutation(async (args: { name: string; props: ScalingGroupProps }, ctx) => {
      requireSuperadmin(ctx);
      const name = checkName(args.name, 'scaling group');
      const values = scalingGroupValues(args.props);
      if (await loadScalingGroup(ctx, name)) throw new Problem('generic-bad-request', `Scaling group ${name} already exists.`);
      await dbOf(ctx)
        .insertInto('scaling_groups')
        .values({ driver_opts: json({}), scheduler_opts: json({}), ...values, name } as Insertable<ScalingGroupTable>)
        .execute();
      return { scaling_group: await loadScalingGroup(ctx, name) };
    }),

    modify_scaling_group: mutation(async (args: { name: string; props: ScalingGroupProps }, ctx) => {
      requireSuperadmin(ctx);
      await existingScalingGroup(ctx, args.name);
      const set = scalingGroupValues(args.props);
      if (Object.keys(set).length) await dbOf(ctx).updateTable('scaling_groups').set(set).where('name', '=', args.name).execute();
      return { scaling_group: await loadScalingGroup(ctx, args.name) };
    }),

    delete_scaling_group: mutation(async (args: { name: string }, ctx) => {
      requireSuperadmin(ctx);
      await existingScalingGroup(ctx, args.name);
      const agent = await dbOf(ctx).selectFrom('agents').select('id').where('scaling_group', '=', args.name).executeTakeFirst();
      if (agent) throw new Problem('generic-bad-request', `Scaling group ${args.name} still has agents.`);
      await dbOf(ctx).deleteFrom('scaling_groups').where('name', '=', args.name).execute();
    }),

    associate_scaling_group_with_domain: mutation(async (args: { domain: string; scaling_group: string }, ctx) => {
      requireSuperadmin(ctx);
      await existingScalingGroup(ctx, args.scaling_group);
      if (!(await dbOf(ctx).selectFrom('domains').select('name').where('name', '=', args.domain).executeTakeFirst())) throw notFound('domain');
      await associated(() => dbOf(ctx).insertInto('sgroups_for_domains').values({ scaling_group: args.scaling_group, domain: args.domain }).execute());
    }),
    disassociate_scaling_group_with_domain: mutation(async (args: { domain: string; scaling_group: string }, ctx) => {
      requireSuperadmin(ctx);
      removedAny(
        await dbOf(ctx).deleteFrom('sgroups_for_domains').where('domain', '=', args.domain).where('scaling_group', '=', args.scaling_group).executeTakeFirst(),
      );
    }),
    disassociate_all_scaling_groups_with_domain: mutation(async (args: { domain: string }, ctx) => {
      requireSuperadmin(ctx);
      await dbOf(ctx).deleteFrom('sgroups_for_domains').where('domain', '=', args.domain).execute();
    }),

    associate_scaling_group_with_user_group: mutation(async (args: { scaling_group: string; user_group: string }, ctx) => {
      requireSuperadmin(ctx);
      await existingScalingGroup(ctx, args.scaling_group);
      if (!(await loadGroup(ctx, args.user_group))) throw notFound('project');
      await associated(() => dbOf(ctx).insertInto('sgroups_for_groups').values({ scaling_group: args.scaling_group, group_id: args.user_group }).execute());
    }),
    disassociate_scaling_group_with_user_group: mutation(async (args: { scaling_group: string; user_group: string }, ctx) => {
      requireSuperadmin(ctx);
      removedAny(
        await dbOf(ctx).deleteFrom('sgroups_for_groups').where('group_id', '=', args.user_group).where('scaling_group', '=', args.scaling_group).executeTakeFirst(),
      );
    }),
    disassociate_all_scaling_groups_with_group: mutation(async (args: { user_group: string }, ctx) => {
      requireSuperadmin(ctx);
      await dbOf(ctx).deleteFrom('sgroups_for_groups').where('group_id', '=', args.user_group).execute();
    }),

    associate_scaling_group_with_keypair: mutation(async (args: { scaling_group: string; access_key: string }, ctx) => {
      requireSuperadmin(ctx);
      await existingScalingGroup(ctx, args.scaling_group);
      if (!(await dbOf(ctx).selectFrom('keypairs').select('access_key').where('access_key', '=', args.access_key).executeTakeFirst())) throw notFound('keypair');
      await associated(() => dbOf(ctx).insertInto('sgroups_for_keypairs').values({ scaling_group: args.scaling_group, access_key: args.access_key }).execute());
    }),
    disassociate_scaling_group_with_keypair: mutation(async (args: { scaling_group: string; access_key: string }, ctx) => {
      requireSuperadmin(ctx);
      removedAny(
        await dbOf(ctx).deleteFrom('sgroups_for_keypairs').where('access_key', '=', args.access_key).where('scaling_group', '=', args.scaling_group).executeTakeFirst(),
      );
    }),
  },
};
