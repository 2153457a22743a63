/**
 * The three resource-policy kinds (keypair, user, project). Any caller may read a policy by name; the plural lists
 * give admins every policy and other users the ones that apply to them. Only superadmins create, modify, delete.
 */
import { isAdmin } from '../auth/principal';
import { dbOf, mutation, type ResolverMap } from './context';
import { loadPolicy } from '../resource-policies/values';
import { createResourcePolicy } from '../resource-policies/create';
import { modifyResourcePolicy } from '../resource-policies/modify';
import { deleteResourcePolicy } from '../resource-policies/delete';
import { crudMutations, entityResults, resultTypes } from './sdl';

/** The fields both the create and the modify input of each policy kind take. */
const KEYPAIR_POLICY_LIMITS = /* GraphQL */ `
    total_resource_slots: JSONString
    max_session_lifetime: Int
    max_concurrent_sessions: Int
    max_concurrent_sftp_sessions: Int
    max_containers_per_session: Int
    idle_timeout: BigInt
    allowed_vfolder_hosts: JSONString
    max_pending_session_count: Int`;
/** The folder limits keypair policies once had, now in user and project policies: kept for Backend.AI clients. */
const keypairFolderLimits = (what: string) => /* GraphQL */ `
    "${what}"
    max_vfolder_count: Int @deprecated(reason: "Deprecated since 23.09.4")
    "${what}"
    max_vfolder_size: BigInt @deprecated(reason: "Deprecated since 23.09.4")
    "${what}"
    max_quota_scope_size: BigInt @deprecated(reason: "Deprecated since 23.09.4")`;
const KEYPAIR_POLICY_INPUT = `${KEYPAIR_POLICY_LIMITS}${keypairFolderLimits('Accepted for Backend.AI clients and ignored: folder limits are in user and project resource policies.')}`;
const USER_POLICY_INPUT = 'max_vfolder_count: Int, max_quota_scope_size: BigInt, max_session_count_per_model_session: Int, max_customized_image_count: Int';
const PROJECT_POLICY_INPUT = 'max_vfolder_count: Int, max_quota_scope_size: BigInt, max_network_count: Int';

export const resourcePolicyTypeDefs = /* GraphQL */ `
  type KeyPairResourcePolicy {
    id: ID
    name: String
    created_at: DateTime
    "LIMITED or UNLIMITED: how slots absent from total_resource_slots are treated."
    default_for_unspecified: String
    ${KEYPAIR_POLICY_LIMITS}
    ${keypairFolderLimits('Always null: folder limits are in user and project resource policies.')}
  }

  input CreateKeyPairResourcePolicyInput {
    default_for_unspecified: String = "UNLIMITED"
    ${KEYPAIR_POLICY_INPUT}
  }

  input ModifyKeyPairResourcePolicyInput {
    default_for_unspecified: String
    ${KEYPAIR_POLICY_INPUT}
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
    ${USER_POLICY_INPUT}
  }

  input ModifyUserResourcePolicyInput {
    ${USER_POLICY_INPUT}
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
    ${PROJECT_POLICY_INPUT}
  }

  input ModifyProjectResourcePolicyInput {
    ${PROJECT_POLICY_INPUT}
  }

  ${resultTypes({
    ...entityResults('KeyPairResourcePolicy', 'resource_policy', ['Create', 'Modify']),
    DeleteKeyPairResourcePolicy: '',
    ...entityResults('UserResourcePolicy', 'resource_policy', ['Create', 'Modify']),
    DeleteUserResourcePolicy: '',
    ...entityResults('ProjectResourcePolicy', 'resource_policy', ['Create', 'Modify']),
    DeleteProjectResourcePolicy: '',
  })}

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
    ${crudMutations('keypair_resource_policy', 'KeyPairResourcePolicy', 'name: String!')}
    ${crudMutations('user_resource_policy', 'UserResourcePolicy', 'name: String!')}
    ${crudMutations('project_resource_policy', 'ProjectResourcePolicy', 'name: String!')}
  }
`;

export const resourcePolicyResolvers: ResolverMap = {
  Query: {
    keypair_resource_policy: async (_root, args: { name?: string | null }, ctx) =>
      (await loadPolicy(ctx.app, 'keypair_resource_policies', args.name ?? ctx.principal.keypairPolicy)) ?? null,
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
      return name ? ((await loadPolicy(ctx.app, 'user_resource_policies', name)) ?? null) : null;
    },
    user_resource_policies: (_root, _args, ctx) => {
      let q = dbOf(ctx).selectFrom('user_resource_policies').selectAll();
      if (!isAdmin(ctx.principal)) {
        q = q.where('name', 'in', (eb) => eb.selectFrom('users').select('resource_policy').where('uuid', '=', ctx.principal.userId));
      }
      return q.orderBy('name').execute();
    },
    project_resource_policy: async (_root, args: { name: string }, ctx) => (await loadPolicy(ctx.app, 'project_resource_policies', args.name)) ?? null,
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
    create_keypair_resource_policy: mutation((args: { name: string; props: Record<string, unknown> }, ctx) =>
      createResourcePolicy(ctx.app, ctx.principal, 'keypair_resource_policies', args.name, args.props),
    ),
    modify_keypair_resource_policy: mutation((args: { name: string; props: Record<string, unknown> }, ctx) =>
      modifyResourcePolicy(ctx.app, ctx.principal, 'keypair_resource_policies', args.name, args.props),
    ),
    delete_keypair_resource_policy: mutation((args: { name: string }, ctx) => deleteResourcePolicy(ctx.app, ctx.principal, 'keypair_resource_policies', args.name)),

    create_user_resource_policy: mutation((args: { name: string; props: Record<string, unknown> }, ctx) =>
      createResourcePolicy(ctx.app, ctx.principal, 'user_resource_policies', args.name, args.props),
    ),
    modify_user_resource_policy: mutation((args: { name: string; props: Record<string, unknown> }, ctx) =>
      modifyResourcePolicy(ctx.app, ctx.principal, 'user_resource_policies', args.name, args.props),
    ),
    delete_user_resource_policy: mutation((args: { name: string }, ctx) => deleteResourcePolicy(ctx.app, ctx.principal, 'user_resource_policies', args.name)),

    create_project_resource_policy: mutation((args: { name: string; props: Record<string, unknown> }, ctx) =>
      createResourcePolicy(ctx.app, ctx.principal, 'project_resource_policies', args.name, args.props),
    ),
    modify_project_resource_policy: mutation((args: { name: string; props: Record<string, unknown> }, ctx) =>
      modifyResourcePolicy(ctx.app, ctx.principal, 'project_resource_policies', args.name, args.props),
    ),
    delete_project_resource_policy: mutation((args: { name: string }, ctx) => deleteResourcePolicy(ctx.app, ctx.principal, 'project_resource_policies', args.name)),
  },
};
