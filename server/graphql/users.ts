/**
 * Users: a plain user reads only themselves; admins read and manage the users of their domain (never
 * superadmins, never other domains); superadmins everything. Creation goes through accounts/create-user.
 */
import type { SelectQueryBuilder, Updateable } from 'kysely';
import { createUser } from '../accounts/create-user';
import { hashPassword } from '../auth/passwords';
import { isAdmin, isSuperadmin, type UserRole } from '../auth/principal';
import { json } from '../db';
import type { Database, User, UserTable } from '../db/schema';
import { Problem } from '../http/problem';
import {
  adminDomainScope,
  adminSees,
  assertManagesDomain,
  dbOf,
  given,
  groupBy,
  invalid,
  loader,
  mutation,
  notFound,
  outsideDomain,
  requireAdmin,
  type GqlContext,
  type ResolverMap,
} from './context';
import { LIST_ARGS_SDL, runList, type FieldMap, type ListArgs } from '../db/list-query';
import { loadDomain } from '../domains/values';
import { canonicalUuid } from '../util/uuid';
import { checkEmail, ipList, oneOf } from '../admin/values';

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

  type CreateUser { ok: Boolean, msg: String, user: User }
  type ModifyUser { ok: Boolean, msg: String, user: User }
  type DeleteUser { ok: Boolean, msg: String }
  type PurgeUser { ok: Boolean, msg: String }

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

export const ROLES: readonly UserRole[] = ['superadmin', 'admin', 'user', 'monitor'];
export const STATUSES = ['active', 'inactive', 'deleted', 'before-verification'] as const;

const USER_FIELDS: FieldMap = {
  uuid: { column: 'uuid', type: 'uuid' },
  username: { column: 'username', type: 'string' },
  email: { column: 'email', type: 'string' },
  full_name: { column: 'full_name', type: 'string' },
  description: { column: 'description', type: 'string' },
  status: { column: 'status', type: 'string' },
  is_active: { column: 'status', type: 'boolean', trueWhen: 'active' },
  status_info: { column: 'status_info', type: 'string' },
  domain_name: { column: 'domain_name', type: 'string' },
  role: { column: 'role', type: 'string' },
  resource_policy: { column: 'resource_policy', type: 'string' },
  need_password_change: { column: 'need_password_change', type: 'boolean' },
  main_access_key: { column: 'main_access_key', type: 'string' },
  created_at: { column: 'created_at', type: 'datetime' },
  modified_at: { column: 'modified_at', type: 'datetime' },
};

export function loadUserBy(ctx: GqlContext, column: 'uuid' | 'email', value: string): Promise<User | undefined> {
  return dbOf(ctx).selectFrom('users').selectAll().where(column, '=', value).executeTakeFirst();
}

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
    return (await loadUserBy(ctx, 'uuid', p.userId)) ?? null;
  }
  if (!isAdmin(p)) throw new Problem('generic-forbidden', 'You may read only your own account.');
  const domain = adminDomainScope(ctx, domainName);
  const user = await loadUserBy(ctx, column, value);
  if (!user || (domain && user.domain_name !== domain)) return null;
  return user;
}

/** The user a management operation targets: outside a domain admin's reach reads as missing; superadmins are untouchable for them. */
async function managedUser(ctx: GqlContext, email: string): Promise<User> {
  requireAdmin(ctx);
  return checkManaged(ctx, await loadUserBy(ctx, 'email', email));
}

/** Refuses a user outside the caller's reach: missing or in another domain reads as not found. */
export function checkManaged<T extends { domain_name: string; role: string }>(ctx: GqlContext, user: T | undefined): T {
  requireAdmin(ctx);
  if (!user || !adminSees(ctx, user.domain_name)) throw notFound('user');
  if (user.role === 'superadmin' && !isSuperadmin(ctx.principal)) {
    throw new Problem('insufficient-privilege', 'Only superadmins may manage a superadmin.');
  }
  return user;
}

function checkRole(ctx: GqlContext, role: string): UserRole {
  const valid = oneOf(role, ROLES, 'role');
  if (valid === 'superadmin' && !isSuperadmin(ctx.principal)) throw new Problem('insufficient-privilege', 'Only superadmins may grant the superadmin role.');
  return valid;
}

function statusFrom(status: string | null | undefined, isActive: boolean | null | undefined): string | undefined {
  if (status) return oneOf(status, STATUSES, 'status');
  if (isActive === true) return 'active';
  if (isActive === false) return 'inactive';
  return undefined;
}

async function checkUserPolicy(ctx: GqlContext, name: string): Promise<void> {
  const found = await dbOf(ctx).selectFrom('user_resource_policies').select('name').where('name', '=', name).executeTakeFirst();
  if (!found) throw invalid(`No such user resource policy: ${name}`);
}

/** Project ids, checked to be projects of the domain. */
async function groupIdsIn(ctx: GqlContext, ids: (string | null)[], domain: string): Promise<string[]> {
  const uuids = [
    ...new Set(
      ids.map((id) => {
        const uuid = id ? canonicalUuid(id) : null;
        if (!uuid) throw invalid(`group_ids: ${id} is not a UUID.`);
        return uuid;
      }),
    ),
  ];
  if (!uuids.length) return [];
  const found = await dbOf(ctx).selectFrom('groups').select('id').where('id', 'in', uuids).where('domain_name', '=', domain).execute();
  if (found.length !== uuids.length) throw invalid(`group_ids: some projects do not exist in domain ${domain}.`);
  return uuids;
}

interface UserProps {
  username?: string | null;
  password?: string | null;
  need_password_change?: boolean | null;
  full_name?: string | null;
  description?: string | null;
  is_active?: boolean | null;
  status?: string | null;
  domain_name?: string | null;
  role?: string | null;
  group_ids?: (string | null)[] | null;
  allowed_client_ip?: (string | null)[] | null;
  resource_policy?: string | null;
  main_access_key?: string | null;
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
    create_user: mutation(async (args: { email: string; props: UserProps & { password: string } }, ctx) => {
      const props = args.props;
      const domainName = props.domain_name ?? (isSuperadmin(ctx.principal) ? 'default' : ctx.principal.domainName);
      assertManagesDomain(ctx, domainName);
      const role = checkRole(ctx, props.role ?? 'user');
      const email = checkEmail(args.email.trim());
      if (!props.password) throw invalid('password must not be empty.');
      const username = props.username?.trim() || email;
      if (username.length > 64) throw invalid('username must be at most 64 characters.');
      if (!(await loadDomain(ctx.app, domainName))) throw invalid(`No such domain: ${domainName}`);
      const policy = props.resource_policy ?? 'default';
      await checkUserPolicy(ctx, policy);
      const groupIds = props.group_ids ? await groupIdsIn(ctx, props.group_ids, domainName) : undefined;
      const created = await createUser(dbOf(ctx), {
        email,
        username,
        password: props.password,
        domainName,
        role,
        status: statusFrom(props.status, props.is_active) ?? 'active',
        fullName: props.full_name ?? '',
        description: props.description ?? '',
        needPasswordChange: props.need_password_change ?? false,
        resourcePolicy: policy,
        allowedClientIp: ipList(props.allowed_client_ip),
        groupIds,
      });
      ctx.app.keypairs.invalidate();
      return { user: await loadUserBy(ctx, 'uuid', created.uuid) };
    }),

    modify_user: mutation(async (args: { email: string; props: UserProps }, ctx) => {
      const user = await managedUser(ctx, args.email);
      const props = given(args.props);
      const set: Updateable<UserTable> = { modified_at: new Date() };
      if (props.username) {
        const username = props.username.trim();
        if (!username || username.length > 64) throw invalid('username must be 1 to 64 characters.');
        set.username = username;
      }
      if (props.password) {
        set.password = await hashPassword(props.password);
        set.password_changed_at = new Date();
      }
      if (props.need_password_change !== undefined && props.need_password_change !== null) set.need_password_change = props.need_password_change;
      if (props.full_name !== undefined) set.full_name = props.full_name ?? '';
      if (props.description !== undefined) set.description = props.description ?? '';
      const status = statusFrom(props.status, props.is_active);
      if (status) set.status = status;
      const role = props.role ? checkRole(ctx, props.role) : undefined;
      if (role) set.role = role;
      let domain = user.domain_name;
      if (props.domain_name && props.domain_name !== user.domain_name) {
        if (!isSuperadmin(ctx.principal)) throw outsideDomain();
        if (!(await loadDomain(ctx.app, props.domain_name))) throw invalid(`No such domain: ${props.domain_name}`);
        domain = set.domain_name = props.domain_name;
      }
      if (props.resource_policy) {
        await checkUserPolicy(ctx, props.resource_policy);
        set.resource_policy = props.resource_policy;
      }
      if (props.allowed_client_ip !== undefined) set.allowed_client_ip = json(ipList(props.allowed_client_ip));
      if (props.main_access_key) {
        const owned = await dbOf(ctx).selectFrom('keypairs').select('access_key').where('access_key', '=', props.main_access_key).where('user_id', '=', user.uuid).executeTakeFirst();
        if (!owned) throw invalid('main_access_key must be one of the user’s own access keys.');
        set.main_access_key = props.main_access_key;
      }
      const groupIds = props.group_ids ? await groupIdsIn(ctx, props.group_ids, domain) : undefined;

      await dbOf(ctx).transaction().execute(async (trx) => {
        await trx.updateTable('users').set(set).where('uuid', '=', user.uuid).execute();
        if (role && role !== user.role) {
          await trx.updateTable('keypairs').set({ is_admin: role === 'admin' || role === 'superadmin', modified_at: new Date() }).where('user_id', '=', user.uuid).execute();
        }
        if (groupIds) {
          await trx.deleteFrom('association_groups_users').where('user_id', '=', user.uuid).execute();
          if (groupIds.length) await trx.insertInto('association_groups_users').values(groupIds.map((group_id) => ({ group_id, user_id: user.uuid }))).execute();
        } else if (domain !== user.domain_name) {
          // Projects belong to a domain: a user moved elsewhere leaves the old domain's projects.
          await trx
            .deleteFrom('association_groups_users')
            .where('user_id', '=', user.uuid)
            .where('group_id', 'in', (eb) => eb.selectFrom('groups').select('id').where('domain_name', '<>', domain))
            .execute();
        }
      });
      ctx.app.keypairs.invalidate();
      return { user: await loadUserBy(ctx, 'uuid', user.uuid) };
    }),

    delete_user: mutation(async (args: { email: string }, ctx) => {
      const user = await managedUser(ctx, args.email);
      if (user.uuid === ctx.principal.userId) throw new Problem('generic-bad-request', 'You cannot delete your own account.');
      await dbOf(ctx).transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ status: 'deleted', modified_at: new Date() }).where('uuid', '=', user.uuid).execute();
        await trx.updateTable('keypairs').set({ is_active: false, modified_at: new Date() }).where('user_id', '=', user.uuid).execute();
      });
      ctx.app.keypairs.invalidate();
    }),

    purge_user: mutation(async (args: { email: string }, ctx) => {
      const user = await managedUser(ctx, args.email);
      if (user.uuid === ctx.principal.userId) throw new Problem('generic-bad-request', 'You cannot purge your own account.');
      await dbOf(ctx).deleteFrom('users').where('uuid', '=', user.uuid).execute();
      ctx.app.keypairs.invalidate();
    }),
  },
};
