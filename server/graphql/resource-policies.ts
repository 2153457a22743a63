/**
 * The three resource-policy kinds (keypair, user, project). Any caller may read a policy by name; the plural lists
 * give admins every policy and other users the ones that apply to them. Only superadmins create, modify, delete.
 */
import type { Insertable, Updateable } from 'kysely';
import { isAdmin } from '../auth/principal';
import { json } from '../db';
import type { KeypairResourcePolicyTable, ProjectResourcePolicyTable, UserResourcePolicyTable } from '../db/schema';
import { Problem } from '../http/problem';
import { dbOf, given, invalid, mutation, notFound, requireSuperadmin, type GqlContext, type ResolverMap } from './context';
import { checkName, hostPermissions, nonNegative, normaliseSlots, oneOf } from '../admin/values';

export const resourcePolicyTypeDefs = /* GraphQL */ `
  type KeyPairResourcePolicy {
    id: ID
    name: String
    created_at: DateTime
    "LIMITED or UNLIMITED: how slots absent from total_resource_slots are treated."
    default_for_unspecified: String
    total_resource_slots: JSONString
    max_session_lifetime: Int
    max_concurrent_sessions: Int
    max_containers_per_session: Int
    idle_timeout: BigInt
    allowed_vfolder_hosts: JSONString
    max_pending_session_count: Int
    max_concurrent_sftp_sessions: Int
    "Always null: folder limits are in user and project resource policies."
    max_vfolder_count: Int @deprecated(reason: "Deprecated since 23.09.4")
    "Always null: folder limits are in user and project resource policies."
    max_vfolder_size: BigInt @deprecated(reason: "Deprecated since 23.09.4")
    "Always null: folder limits are in user and project resource policies."
    max_quota_scope_size: BigInt @deprecated(reason: "Deprecated since 23.09.4")
  }

  input CreateKeyPairResourcePolicyInput {
    default_for_unspecified: String = "UNLIMITED"
    total_resource_slots: JSONString
    max_session_lifetime: Int
    max_concurrent_sessions: Int
    max_concurrent_sftp_sessions: Int
    max_containers_per_session: Int
    idle_timeout: BigInt
    allowed_vfolder_hosts: JSONString
    max_pending_session_count: Int
    "Accepted for Backend.AI clients and ignored: folder limits are in user and project resource policies."
    max_vfolder_count: Int @deprecated(reason: "Deprecated since 23.09.4")
    "Accepted for Backend.AI clients and ignored."
    max_vfolder_size: BigInt @deprecated(reason: "Deprecated since 23.09.4")
    "Accepted for Backend.AI clients and ignored."
    max_quota_scope_size: BigInt @deprecated(reason: "Deprecated since 23.09.4")
  }

  input ModifyKeyPairResourcePolicyInput {
    default_for_unspecified: String
    total_resource_slots: JSONString
    max_session_lifetime: Int
    max_concurrent_sessions: Int
    max_concurrent_sftp_sessions: Int
    max_containers_per_session: Int
    idle_timeout: BigInt
    allowed_vfolder_hosts: JSONString
    max_pending_session_count: Int
    "Accepted for Backend.AI clients and ignored: folder limits are in user and project resource policies."
    max_vfolder_count: Int @deprecated(reason: "Deprecated since 23.09.4")
    "Accepted for Backend.AI clients and ignored."
    max_vfolder_size: BigInt @deprecated(reason: "Deprecated since 23.09.4")
    "Accepted for Backend.AI clients and ignored."
    max_quota_scope_size: BigInt @deprecated(reason: "Deprecated since 23.09.4")
  }

  type UserResourcePolicy {
    id: ID
    name: String
    created_at: DateTime
    max_vfolder_count: Int
    max_quota_scope_size: BigInt
    max_session_count_per_model_session: Int
    max_customized_image_count: Int
    "The same as max_quota_scope_size."
    max_vfolder_size: BigInt @deprecated(reason: "Deprecated since 23.09.1")
  }

  input CreateUserResourcePolicyInput {
    max_vfolder_count: Int
    max_quota_scope_size: BigInt
    max_session_count_per_model_session: Int
    max_customized_image_count: Int
  }

  input ModifyUserResourcePolicyInput {
    max_vfolder_count: Int
    max_quota_scope_size: BigInt
    max_session_count_per_model_session: Int
    max_customized_image_count: Int
  }

  type ProjectResourcePolicy {
    id: ID
    name: String
    created_at: DateTime
    max_vfolder_count: Int
    max_quota_scope_size: BigInt
    max_network_count: Int
    "The same as max_quota_scope_size."
    max_vfolder_size: BigInt @deprecated(reason: "Deprecated since 23.09.1")
  }

  input CreateProjectResourcePolicyInput {
    max_vfolder_count: Int
    max_quota_scope_size: BigInt
    max_network_count: Int
  }

  input ModifyProjectResourcePolicyInput {
    max_vfolder_count: Int
    max_quota_scope_size: BigInt
    max_network_count: Int
  }

  type CreateKeyPairResourcePolicy { ok: Boolean, msg: String, resource_policy: KeyPairResourcePolicy }
  type ModifyKeyPairResourcePolicy { ok: Boolean, msg: String, resource_policy: KeyPairResourcePolicy }
  type DeleteKeyPairResourcePolicy { ok: Boolean, msg: String }
  type CreateUserResourcePolicy { ok: Boolean, msg: String, resource_policy: UserResourcePolicy }
  type ModifyUserResourcePolicy { ok: Boolean, msg: String, resource_policy: UserResourcePolicy }
  type DeleteUserResourcePolicy { ok: Boolean, msg: String }
  type CreateProjectResourcePolicy { ok: Boolean, msg: String, resource_policy: ProjectResourcePolicy }
  type ModifyProjectResourcePolicy { ok: Boolean, msg: String, resource_policy: ProjectResourcePolicy }
  type DeleteProjectResourcePolicy { ok: Boolean, msg: String }

  extend type Query {
    "A keypair resource policy; without a name, the one of the caller's keypair."
    keypair_resource_policy(name: String): KeyPairResourcePolicy
    keypair_resource_policies: [KeyPairResourcePolicy]
    "A user resource policy; without a name, the caller's."
    user_resource_policy(name: String): UserResourcePolicy
    user_resource_policies: [UserResourcePolicy]
    project_resource_policy(name: String!): ProjectResourcePolicy
    project_resource_policies: [ProjectResourcePolicy]
  }

  extend type Mutation {
    create_keypair_resource_policy(name: String!, props: CreateKeyPairResourcePolicyInput!): CreateKeyPairResourcePolicy
    modify_keypair_resource_policy(name: String!, props: ModifyKeyPairResourcePolicyInput!): ModifyKeyPairResourcePolicy
    delete_keypair_resource_policy(name: String!): DeleteKeyPairResourcePolicy
    create_user_resource_policy(name: String!, props: CreateUserResourcePolicyInput!): CreateUserResourcePolicy
    modify_user_resource_policy(name: String!, props: ModifyUserResourcePolicyInput!): ModifyUserResourcePolicy
    delete_user_resource_policy(name: String!): DeleteUserResourcePolicy
    create_project_resource_policy(name: String!, props: CreateProjectResourcePolicyInput!): CreateProjectResourcePolicy
    modify_project_resource_policy(name: String!, props: ModifyProjectResourcePolicyInput!): ModifyProjectResourcePolicy
    delete_project_resource_policy(name: String!): DeleteProjectResourcePolicy
  }
`;

type PolicyTable = 'keypair_resource_policies' | 'user_resource_policies' | 'project_resource_policies';

/** Where each policy kind is referenced, for a clear refusal before deleting one in use. */
const USED_BY = {
  keypair_resource_policies: { table: 'keypairs', column: 'resource_policy', what: 'keypairs' },
  user_resource_policies: { table: 'users', column: 'resource_policy', what: 'users' },
  project_resource_policies: { table: 'groups', column: 'resource_policy', what: 'projects' },
} as const;

function load(ctx: GqlContext, table: PolicyTable, name: string) {
  return dbOf(ctx).selectFrom(table).selectAll().where('name', '=', name).executeTakeFirst();
}

async function createPolicy(ctx: GqlContext, table: PolicyTable, name: string, values: Record<string, unknown>) {
  requireSuperadmin(ctx);
  checkName(name, 'resource policy');
  if (await load(ctx, table, name)) throw new Problem('generic-bad-request', `Resource policy ${name} already exists.`);
  await dbOf(ctx).insertInto(table).values({ name, ...values } as Insertable<KeypairResourcePolicyTable & UserResourcePolicyTable & ProjectResourcePolicyTable>).execute();
  return { resource_policy: await load(ctx, table, name) };
}

async function modifyPolicy(ctx: GqlContext, table: PolicyTable, name: string, set: Record<string, unknown>) {
  requireSuperadmin(ctx);
  if (!(await load(ctx, table, name))) throw notFound('resource policy');
  if (Object.keys(set).length) await dbOf(ctx).updateTable(table).set(set as Updateable<KeypairResourcePolicyTable & UserResourcePolicyTable & ProjectResourcePolicyTable>).where('name', '=', name).execute();
  return { resource_policy: await load(ctx, table, name) };
}

async function deletePolicy(ctx: GqlContext, table: PolicyTable, name: string) {
  requireSuperadmin(ctx);
  if (!(await load(ctx, table, name))) throw notFound('resource policy');
  const use = USED_BY[table];
  const user = await dbOf(ctx).selectFrom(use.table).select(use.column).where(use.column, '=', name).executeTakeFirst();
  if (user) throw new Problem('generic-bad-request', `Resource policy ${name} is still used by ${use.what}.`);
  await dbOf(ctx).deleteFrom(table).where('name', '=', name).execute();
}

function counts<T extends Record<string, unknown>>(props: T, fields: (keyof T & string)[]): Partial<T> {
  const out: Partial<T> = {};
  for (const field of fields) {
    const value = props[field];
    if (value === undefined) continue;
    if (value === null) throw invalid(`${field} must not be null.`);
    nonNegative(value as number, field);
    out[field] = value;
  }
  return out;
}

interface KeypairPolicyProps extends Record<string, unknown> {
  default_for_unspecified?: string | null;
  total_resource_slots?: unknown;
  allowed_vfolder_hosts?: unknown;
  max_session_lifetime?: number | null;
  max_concurrent_sessions?: number | null;
  max_concurrent_sftp_sessions?: number | null;
  max_containers_per_session?: number | null;
  idle_timeout?: number | null;
  max_pending_session_count?: number | null;
}

const KEYPAIR_POLICY_COUNTS = ['max_session_lifetime', 'max_concurrent_sessions', 'max_concurrent_sftp_sessions', 'max_containers_per_session', 'idle_timeout'];

function keypairPolicyValues(raw: KeypairPolicyProps): Updateable<KeypairResourcePolicyTable> {
  const props = given(raw);
  const values: Updateable<KeypairResourcePolicyTable> = counts(props, KEYPAIR_POLICY_COUNTS) as Updateable<KeypairResourcePolicyTable>;
  if (props.default_for_unspecified) values.default_for_unspecified = oneOf(props.default_for_unspecified.toUpperCase(), ['LIMITED', 'UNLIMITED'], 'default_for_unspecified');
  if (props.total_resource_slots !== undefined) values.total_resource_slots = json(normaliseSlots(props.total_resource_slots, 'total_resource_slots'));
  if (props.allowed_vfolder_hosts !== undefined) values.allowed_vfolder_hosts = json(hostPermissions(props.allowed_vfolder_hosts, 'allowed_vfolder_hosts'));
  if (props.max_pending_session_count !== undefined) {
    nonNegative(props.max_pending_session_count, 'max_pending_session_count');
    values.max_pending_session_count = props.max_pending_session_count;
  }
  return values;
}

const USER_POLICY_COUNTS = ['max_vfolder_count', 'max_quota_scope_size', 'max_session_count_per_model_session', 'max_customized_image_count'];
const PROJECT_POLICY_COUNTS = ['max_vfolder_count', 'max_quota_scope_size', 'max_network_count'];

export const resourcePolicyResolvers: ResolverMap = {
  Query: {
    keypair_resource_policy: async (_root, args: { name?: string | null }, ctx) =>
      (await load(ctx, 'keypair_resource_policies', args.name ?? ctx.principal.keypairPolicy)) ?? null,
    keypair_resource_policies: (_root, _args, ctx) => {
      let q = dbOf(ctx).selectFrom('keypair_resource_policies').selectAll();
      if (!isAdmin(ctx.principal)) {
        q = q.where('name', 'in', (eb) => eb.selectFrom('keypairs').select('resource_policy').where('user_id', '=', ctx.principal.userId));
      }
      return q.orderBy('name').execute();
    },
    user_resource_policy: async (_root, args: { name?: string | null }, ctx) => {
      let name = args.name;
      if (!name) {
        const me = await dbOf(ctx).selectFrom('users').select('resource_policy').where('uuid', '=', ctx.principal.userId).executeTakeFirst();
        name = me?.resource_policy;
      }
      return name ? ((await load(ctx, 'user_resource_policies', name)) ?? null) : null;
    },
    user_resource_policies: (_root, _args, ctx) => {
      let q = dbOf(ctx).selectFrom('user_resource_policies').selectAll();
      if (!isAdmin(ctx.principal)) {
        q = q.where('name', 'in', (eb) => eb.selectFrom('users').select('resource_policy').where('uuid', '=', ctx.principal.userId));
      }
      return q.orderBy('name').execute();
    },
    project_resource_policy: async (_root, args: { name: string }, ctx) => (await load(ctx, 'project_resource_policies', args.name)) ?? null,
    project_resource_policies: (_root, _args, ctx) => {
      let q = dbOf(ctx).selectFrom('project_resource_policies').selectAll();
      if (!isAdmin(ctx.principal)) {
        q = q.where('name', 'in', (eb) =>
          eb
            .selectFrom('groups')
            .select('resource_policy')
            .where('id', 'in', eb.selectFrom('association_groups_users').select('group_id').where('user_id', '=', ctx.principal.userId)),
        );
      }
      return q.orderBy('name').execute();
    },
  },
  KeyPairResourcePolicy: {
    id: (p: { name: string }) => p.name,
    max_vfolder_count: () => null,
    max_vfolder_size: () => null,
    max_quota_scope_size: () => null,
  },
  UserResourcePolicy: { id: (p: { name: string }) => p.name, max_vfolder_size: (p: { max_quota_scope_size: number }) => p.max_quota_scope_size },
  ProjectResourcePolicy: { id: (p: { name: string }) => p.name, max_vfolder_size: (p: { max_quota_scope_size: number }) => p.max_quota_scope_size },
  Mutation: {
    create_keypair_resource_policy: mutation(async (args: { name: string; props: KeypairPolicyProps }, ctx) => {
      const values = keypairPolicyValues(args.props);
      return createPolicy(ctx, 'keypair_resource_policies', args.name, {
        total_resource_slots: json({}),
        allowed_vfolder_hosts: json({}),
        ...values,
      });
    }),
    modify_keypair_resource_policy: mutation(async (args: { name: string; props: KeypairPolicyProps }, ctx) =>
      modifyPolicy(ctx, 'keypair_resource_policies', args.name, keypairPolicyValues(args.props)),
    ),
    delete_keypair_resource_policy: mutation(async (args: { name: string }, ctx) => deletePolicy(ctx, 'keypair_resource_policies', args.name)),

    create_user_resource_policy: mutation(async (args: { name: string; props: Record<string, unknown> }, ctx) =>
      createPolicy(ctx, 'user_resource_policies', args.name, counts(given(args.props), USER_POLICY_COUNTS) as Updateable<UserResourcePolicyTable>),
    ),
    modify_user_resource_policy: mutation(async (args: { name: string; props: Record<string, unknown> }, ctx) =>
      modifyPolicy(ctx, 'user_resource_policies', args.name, counts(given(args.props), USER_POLICY_COUNTS)),
    ),
    delete_user_resource_policy: mutation(async (args: { name: string }, ctx) => deletePolicy(ctx, 'user_resource_policies', args.name)),

    create_project_resource_policy: mutation(async (args: { name: string; props: Record<string, unknown> }, ctx) =>
      createPolicy(ctx, 'project_resource_policies', args.name, counts(given(args.props), PROJECT_POLICY_COUNTS) as Updateable<ProjectResourcePolicyTable>),
    ),
    modify_project_resource_policy: mutation(async (args: { name: string; props: Record<string, unknown> }, ctx) =>
      modifyPolicy(ctx, 'project_resource_policies', args.name, counts(given(args.props), PROJECT_POLICY_COUNTS)),
    ),
    delete_project_resource_policy: mutation(async (args: { name: string }, ctx) => deletePolicy(ctx, 'project_resource_policies', args.name)),
  },
};
