/**
 * Users: a plain user reads only themselves; admins read and manage the users of their domain (never
 * superadmins, never other domains); superadmins everything. Creation goes through accounts/create-user.
 */
import type { SelectQueryBuilder } from 'kysely';
import { isAdmin, isSuperadmin } from '../auth/principal';
import type { Database, User } from '../db/schema';
import { Problem } from '../http/problem';
import {
  adminDomainScope,
  dbOf,
  groupBy,
  invalid,
  loader,
  mutation,
  outsideDomain,
  type GqlContext,
  type ResolverMap,
} from './context';
import { LIST_ARGS_SDL, runList, fieldsOf, type FieldMap, type ListArgs } from '../db/list-query';
import { canonicalUuid } from '../util/uuid';
import { loadUserBy, type UserProps } from '../accounts/managed-users';
import { addUser } from '../accounts/add-user';
import { modifyUser } from '../accounts/modify-user';
import { deleteUser } from '../accounts/delete-user';
import { purgeUser } from '../accounts/purge-user';
import { entityResults, resultTypes } from './sdl';

const USER_FILTER_ARGS = 'domain_name: String, group_id: UUID, is_active: Boolean, status: String';

export const userTypeDefs = /* GraphQL */ `
  type UserGroup {
    id: UUID
    name: String
  }

  type User {
    id: ID
    uuid: UUID
    username: String
    email: String
    need_password_change: Boolean
    full_name: String
    description: String
    is_active: Boolean
    status: String
    status_info: String
    created_at: DateTime
    modified_at: DateTime
    domain_name: String
    role: String
    resource_policy: String
    allowed_client_ip: [String]
    "Always false: Berth has no TOTP."
    totp_activated: Boolean
    "Always null: Berth has no TOTP."
    totp_activated_at: DateTime
    "Always false: Berth has no sudo sessions."
    sudo_session_enabled: Boolean
    main_access_key: String
    groups: [UserGroup]
  }

  type UserList {
    items: [User]!
    total_count: Int!
  }

  input UserInput {
    username: String
    password: String!
    need_password_change: Boolean
    full_name: String
    description: String
    is_active: Boolean
    status: String
    "Default: the domain named default for superadmins, the caller's own domain for domain admins."
    domain_name: String
    role: String = "user"
    "Project UUIDs; when omitted, the domain's project named default."
    group_ids: [String]
    allowed_client_ip: [String]
    "Accepted for Backend.AI clients; Berth has no TOTP, so it is always false."
    totp_activated: Boolean
    resource_policy: String = "default"
    "Accepted for Backend.AI clients; Berth has no sudo sessions, so it is always false."
    sudo_session_enabled: Boolean
  }

  input ModifyUserInput {
    username: String
    password: String
    need_password_change: Boolean
    full_name: String
    description: String
    is_active: Boolean
    status: String
    domain_name: String
    role: String
    "Replaces the user's project memberships."
    group_ids: [String]
    allowed_client_ip: [String]
    "Accepted for Backend.AI clients; Berth has no TOTP."
    totp_activated: Boolean
    resource_policy: String
    "Accepted for Backend.AI clients; Berth has no sudo sessions."
    sudo_session_enabled: Boolean
    main_access_key: String
  }

  "Accepted for Backend.AI clients. Purging removes the user's keypairs and memberships; objects other modules keep for the user (folders, services) stop the purge with ok: false while they exist."
  input PurgeUserInput {
    purge_shared_vfolders: Boolean
    delegate_endpoint_ownership: Boolean
  }

  ${resultTypes({ ...entityResults('User', 'user', ['Create', 'Modify']), DeleteUser: '', PurgeUser: '' })}

  extend type Query {
    "A user by email; without one, the caller. Plain users may read only themselves."
    user(domain_name: String, email: String): User
    user_from_uuid(domain_name: String, user_id: ID): User
    "Users of the caller's domain (admins) or of any domain (superadmins)."
    users(${USER_FILTER_ARGS}): [User]
    user_list(${LIST_ARGS_SDL}, ${USER_FILTER_ARGS}): UserList
  }

  extend type Mutation {
    create_user(email: String!, props: UserInput!): CreateUser
    modify_user(email: String!, props: ModifyUserInput!): ModifyUser
    "Marks the user deleted and deactivates their keypairs."
    delete_user(email: String!): DeleteUser
    "Removes the user, their keypairs and memberships."
    purge_user(email: String!, props: PurgeUserInput): PurgeUser
  }
`;

const USER_FIELDS: FieldMap = {
  ...fieldsOf(null, {
    uuid: ['uuid'],
    string: ['username', 'email', 'full_name', 'description', 'status', 'status_info', 'domain_name', 'role', 'resource_policy', 'main_access_key'],
    boolean: ['need_password_change'],
    datetime: ['created_at', 'modified_at'],
  }),
  is_active: { column: 'status', type: 'boolean', trueWhen: 'active' },
};

interface UserFilterArgs {
  domain_name?: string | null;
  group_id?: string | null;
  is_active?: boolean | null;
  status?: string | null;
}

/** The users an admin may list, with the list arguments applied. */
function scopedUsers(ctx: GqlContext, args: UserFilterArgs): SelectQueryBuilder<Database, 'users', object> {
  const domain = adminDomainScope(ctx, args.domain_name);
  let q = dbOf(ctx).selectFrom('users');
  if (domain) q = q.where('domain_name', '=', domain);
  if (args.group_id) {
    const groupId = args.group_id;
    q = q.where('uuid', 'in', (eb) => eb.selectFrom('association_groups_users').select('user_id').where('group_id', '=', groupId));
  }
  if (args.status) q = q.where('status', '=', args.status);
  else if (args.is_active !== undefined && args.is_active !== null) q = q.where('status', args.is_active ? '=' : '<>', 'active');
  return q;
}

/** Looks a user up for the caller: themselves always, others only within an admin's reach. */
async function readableUser(ctx: GqlContext, column: 'uuid' | 'email', value: string | null | undefined, domainName?: string | null): Promise<User | null> {
  const p = ctx.principal;
  const self = !value || (column === 'email' ? value === p.email : value === p.userId);
  if (self) {
    if (domainName && domainName !== p.domainName && !isSuperadmin(p)) throw outsideDomain();
    return (await loadUserBy(ctx.app, 'uuid', p.userId)) ?? null;
  }
  if (!isAdmin(p)) throw new Problem('generic-forbidden', 'You may read only your own account.');
  const domain = adminDomainScope(ctx, domainName);
  const user = await loadUserBy(ctx.app, column, value);
  if (!user || (domain && user.domain_name !== domain)) return null;
  return user;
}

export const userResolvers: ResolverMap = {
  Query: {
    user: (_root, args: { email?: string | null; domain_name?: string | null }, ctx) => readableUser(ctx, 'email', args.email, args.domain_name),
    user_from_uuid: (_root, args: { user_id?: string | null; domain_name?: string | null }, ctx) => {
      const uuid = args.user_id ? canonicalUuid(args.user_id) : null;
      if (args.user_id && !uuid) throw invalid(`user_id: ${args.user_id} is not a UUID.`);
      return readableUser(ctx, 'uuid', uuid, args.domain_name);
    },
    users: (_root, args: UserFilterArgs, ctx) => scopedUsers(ctx, args).selectAll().orderBy('created_at').orderBy('uuid').execute(),
    user_list: (_root, args: UserFilterArgs & ListArgs, ctx) => runList(scopedUsers(ctx, args), args, USER_FIELDS, 'uuid', (qb) => qb.selectAll()),
  },
  User: {
    id: (user: User) => user.uuid,
    is_active: (user: User) => user.status === 'active',
    totp_activated: () => false,
    totp_activated_at: () => null,
    sudo_session_enabled: () => false,
    groups: async (user: User, _args, ctx) => {
      const load = loader<string, { id: string; name: string }[]>(ctx, 'user.groups', async (ids) => {
        const rows = await dbOf(ctx)
          .selectFrom('association_groups_users as a')
          .innerJoin('groups as g', 'g.id', 'a.group_id')
          .select(['a.user_id', 'g.id', 'g.name'])
          .where('a.user_id', 'in', ids)
          .orderBy('g.name')
          .execute();
        return groupBy(rows, (r) => r.user_id);
      });
      return ((await load.load(user.uuid)) ?? []).map(({ id, name }) => ({ id, name }));
    },
  },
  Mutation: {
    create_user: mutation((args: { email: string; props: UserProps & { password: string } }, ctx) => addUser(ctx.app, ctx.principal, args)),

    modify_user: mutation((args: { email: string; props: UserProps }, ctx) => modifyUser(ctx.app, ctx.principal, args)),

    delete_user: mutation((args: { email: string }, ctx) => deleteUser(ctx.app, ctx.principal, args)),

    purge_user: mutation((args: { email: string }, ctx) => purgeUser(ctx.app, ctx.principal, args)),
  },
};
