/**
 * Groups (projects): superadmins see all, domain admins their domain's, users the projects they belong to.
 * Superadmins and domain admins (within their domain) create, modify, deactivate and purge them.
 */
import { randomUUID } from 'node:crypto';
import type { SelectQueryBuilder, Updateable } from 'kysely';
import { isSuperadmin } from '../auth/principal';
import { json } from '../db';
import type { Database, Group, GroupTable } from '../db/schema';
import { Problem } from '../http/problem';
import {
  adminDomainScope,
  adminSees,
  assertManagesDomain,
  dbOf,
  given,
  groupBy,
  invalid,
  isDomainAdmin,
  loader,
  mutation,
  notFound,
  outsideDomain,
  requireAdmin,
  type GqlContext,
  type ResolverMap,
} from './context';
import { loadDomain } from '../domains/values';
import { canonicalUuid } from '../util/uuid';
import { hostPermissions, normaliseSlots } from '../admin/values';

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

  type CreateGroup { ok: Boolean, msg: String, group: Group }
  type ModifyGroup { ok: Boolean, msg: String, group: Group }
  type DeleteGroup { ok: Boolean, msg: String }
  type PurgeGroup { ok: Boolean, msg: String }

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

const GROUP_TYPES = ['general', 'model-store'];

/** Wire form (GENERAL, MODEL_STORE) to the stored one (general, model-store). */
function storedType(wire: string): string {
  const stored = wire.trim().toLowerCase().replace(/_/g, '-');
  if (!GROUP_TYPES.includes(stored)) throw invalid(`type must be one of GENERAL, MODEL_STORE.`);
  return stored;
}

export function loadGroup(ctx: GqlContext, id: string): Promise<Group | undefined> {
  return dbOf(ctx).selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The group, when the caller may see it. */
async function visibleGroup(ctx: GqlContext, id: string): Promise<Group | null> {
  const group = await loadGroup(ctx, id);
  if (!group) return null;
  if (adminSees(ctx, group.domain_name)) return group;
  return (await isMember(ctx, id, ctx.principal.userId)) ? group : null;
}

export async function isMember(ctx: GqlContext, groupId: string, userId: string): Promise<boolean> {
  const row = await dbOf(ctx)
    .selectFrom('association_groups_users')
    .select('group_id')
    .where('group_id', '=', groupId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Boolean(row);
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

/** The group for a management operation: missing, or outside a domain admin's domain, reads as not found. */
async function managedGroup(ctx: GqlContext, id: string): Promise<Group> {
  requireAdmin(ctx);
  const group = await loadGroup(ctx, id);
  if (!group || !adminSees(ctx, group.domain_name)) throw notFound('project');
  return group;
}

async function checkProjectPolicy(ctx: GqlContext, name: string): Promise<void> {
  const policy = await dbOf(ctx).selectFrom('project_resource_policies').select('name').where('name', '=', name).executeTakeFirst();
  if (!policy) throw invalid(`No such project resource policy: ${name}`);
}

interface GroupProps {
  name?: string | null;
  type?: string | null;
  description?: string | null;
  is_active?: boolean | null;
  domain_name?: string | null;
  total_resource_slots?: unknown;
  allowed_vfolder_hosts?: unknown;
  integration_id?: string | null;
  resource_policy?: string | null;
  user_update_mode?: string | null;
  user_uuids?: (string | null)[] | null;
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
    scaling_groups: async (group: Group, _args, ctx) => {
      const load = loader<string, { scaling_group: string }[]>(ctx, 'group.scaling_groups', async (ids) => {
        const rows = await dbOf(ctx).selectFrom('sgroups_for_groups').select(['group_id', 'scaling_group']).where('group_id', 'in', ids).orderBy('scaling_group').execute();
        return groupBy(rows, (r) => r.group_id);
      });
      return ((await load.load(group.id)) ?? []).map((r) => r.scaling_group);
    },
  },
  Mutation: {
    create_group: mutation(async (args: { name: string; props: GroupProps & { domain_name: string } }, ctx) => {
      const props = args.props;
      assertManagesDomain(ctx, props.domain_name);
      const name = args.name.trim();
      if (!name || name.length > 64) throw invalid('The project name must be 1 to 64 characters.');
      if (!(await loadDomain(ctx.app, props.domain_name))) throw invalid(`No such domain: ${props.domain_name}`);
      const policy = props.resource_policy ?? 'default';
      await checkProjectPolicy(ctx, policy);
      const clash = await dbOf(ctx).selectFrom('groups').select('id').where('domain_name', '=', props.domain_name).where('name', '=', name).executeTakeFirst();
      if (clash) throw new Problem('generic-bad-request', `Project ${name} already exists in domain ${props.domain_name}.`);
      const id = randomUUID();
      await dbOf(ctx)
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
      return { group: await loadGroup(ctx, id) };
    }),

    modify_group: mutation(async (args: { gid: string; props: GroupProps }, ctx) => {
      const group = await managedGroup(ctx, args.gid);
      const props = given(args.props);
      const set: Updateable<GroupTable> = { modified_at: new Date() };
      if (props.name !== undefined && props.name !== null) {
        const name = props.name.trim();
        if (!name || name.length > 64) throw invalid('The project name must be 1 to 64 characters.');
        set.name = name;
      }
      if (props.description !== undefined) set.description = props.description ?? '';
      if (props.is_active !== undefined && props.is_active !== null) set.is_active = props.is_active;
      if (props.domain_name && props.domain_name !== group.domain_name) {
        if (!isSuperadmin(ctx.principal)) throw outsideDomain();
        if (!(await loadDomain(ctx.app, props.domain_name))) throw invalid(`No such domain: ${props.domain_name}`);
        set.domain_name = props.domain_name;
      }
      if (props.total_resource_slots !== undefined) set.total_resource_slots = json(normaliseSlots(props.total_resource_slots, 'total_resource_slots'));
      if (props.allowed_vfolder_hosts !== undefined) set.allowed_vfolder_hosts = json(hostPermissions(props.allowed_vfolder_hosts, 'allowed_vfolder_hosts'));
      if (props.integration_id !== undefined) set.integration_id = props.integration_id;
      if (props.resource_policy) {
        await checkProjectPolicy(ctx, props.resource_policy);
        set.resource_policy = props.resource_policy;
      }

      let members: string[] = [];
      const mode = props.user_update_mode ?? null;
      if (mode !== null && mode !== 'add' && mode !== 'remove') throw invalid('user_update_mode must be add or remove.');
      if (props.user_uuids?.length && mode === null) throw invalid('user_update_mode (add or remove) is required with user_uuids.');
      if (mode && props.user_uuids?.length) {
        members = props.user_uuids.map((u) => {
          const uuid = u ? canonicalUuid(u) : null;
          if (!uuid) throw invalid(`user_uuids: ${u} is not a UUID.`);
          return uuid;
        });
        members = [...new Set(members)];
        const domain = set.domain_name ?? group.domain_name;
        const found = await dbOf(ctx).selectFrom('users').select('uuid').where('uuid', 'in', members).where('domain_name', '=', domain as string).execute();
        if (found.length !== members.length) throw invalid(`Some of user_uuids are not users of domain ${String(domain)}.`);
      }

      await dbOf(ctx).transaction().execute(async (trx) => {
        await trx.updateTable('groups').set(set).where('id', '=', group.id).execute();
        if (mode === 'add' && members.length) {
          await trx
            .insertInto('association_groups_users')
            .values(members.map((user_id) => ({ group_id: group.id, user_id })))
            .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
            .execute();
        } else if (mode === 'remove' && members.length) {
          await trx.deleteFrom('association_groups_users').where('group_id', '=', group.id).where('user_id', 'in', members).execute();
        }
      });
      return { group: await loadGroup(ctx, group.id) };
    }),

    delete_group: mutation(async (args: { gid: string }, ctx) => {
      const group = await managedGroup(ctx, args.gid);
      await dbOf(ctx).updateTable('groups').set({ is_active: false, modified_at: new Date() }).where('id', '=', group.id).execute();
    }),

    purge_group: mutation(async (args: { gid: string }, ctx) => {
      const group = await managedGroup(ctx, args.gid);
      await dbOf(ctx).deleteFrom('groups').where('id', '=', group.id).execute();
    }),
  },
};
