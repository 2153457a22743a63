/**
 * Keypairs: a plain user reads only their own; admins read and manage those of their domain's users (never a
 * superadmin's); superadmins all. `secret_key` is shown only to the keypair's owner and to superadmins (and once,
 * in the create_keypair answer, to whoever created it).
 */
import { isAdmin, isSuperadmin } from '../auth/principal';
import { generateAccessKey, generateSecretKey } from '../auth/keys';
import type { Updateable } from 'kysely';
import type { KeypairTable } from '../db/schema';
import { Problem } from '../http/problem';
import { adminDomainScope, adminSees, dbOf, given, groupBy, invalid, loader, mutation, notFound, requireAdmin, type GqlContext, type ResolverMap } from './context';
import { LIST_ARGS_SDL, runList, type FieldMap, type ListArgs } from '../db/list-query';
import { canonicalUuid } from '../util/uuid';
import { checkManaged, loadUserBy } from '../accounts/managed-users';
import { nonNegative } from '../admin/values';
import { COUNTING_QUOTA } from '../sessions/states';
import { sessionsOfKeypair } from './sessions';

const KEYPAIR_FILTER_ARGS = 'domain_name: String, email: String, is_active: Boolean';

export const keypairTypeDefs = /* GraphQL */ `
  type UserInfo {
    email: String
    full_name: String
  }

  type KeyPair {
    "The access key (Backend.AI's Item id)."
    id: ID
    "The owner's email (Backend.AI's legacy naming)."
    user_id: String
    "The owner's UUID."
    user: UUID
    full_name: String
    domain_name: String
    access_key: String
    "Shown only to the keypair's owner and to superadmins."
    secret_key: String
    is_active: Boolean
    is_admin: Boolean
    resource_policy: String
    created_at: DateTime
    modified_at: DateTime
    last_used: DateTime
    rate_limit: Int
    num_queries: Int
    ssh_public_key: String
    projects: [String]
    user_info: UserInfo
    "The keypair's sessions; status: one status or several separated by commas."
    compute_sessions(status: String): [ComputeSession]
    "Sessions of this keypair that count against max_concurrent_sessions now."
    concurrency_used: Int
    "The keypair resource policy's max_concurrent_sessions."
    concurrency_limit: Int @deprecated(reason: "Moved to KeyPairResourcePolicy object as the max_concurrent_sessions field.")
  }

  type KeyPairList {
    items: [KeyPair]!
    total_count: Int!
  }

  input KeyPairInput {
    is_active: Boolean = true
    is_admin: Boolean = false
    resource_policy: String = "default"
    "Deprecated in Backend.AI and ignored: the keypair resource policy sets concurrency."
    concurrency_limit: Int
    "Requests per 15 minutes; null means unlimited. Default 10000."
    rate_limit: Int
  }

  input ModifyKeyPairInput {
    is_active: Boolean
    is_admin: Boolean
    resource_policy: String
    "Deprecated in Backend.AI and ignored: the keypair resource policy sets concurrency."
    concurrency_limit: Int
    rate_limit: Int
  }

  type CreateKeyPair { ok: Boolean, msg: String, keypair: KeyPair }
  type ModifyKeyPair { ok: Boolean, msg: String, keypair: KeyPair }
  type DeleteKeyPair { ok: Boolean, msg: String }

  extend type Query {
    "A keypair; without an access key, the caller's own."
    keypair(domain_name: String, access_key: String): KeyPair
    keypairs(${KEYPAIR_FILTER_ARGS}): [KeyPair]
    keypair_list(${LIST_ARGS_SDL}, ${KEYPAIR_FILTER_ARGS}): KeyPairList
  }

  extend type Mutation {
    "user_id is the owner's email (or UUID)."
    create_keypair(user_id: String!, props: KeyPairInput!): CreateKeyPair
    modify_keypair(access_key: String!, props: ModifyKeyPairInput!): ModifyKeyPair
    delete_keypair(access_key: String!): DeleteKeyPair
  }
`;

const KEYPAIR_FIELDS: FieldMap = {
  access_key: { column: 'k.access_key', type: 'string' },
  user_id: { column: 'u.email', type: 'string' },
  email: { column: 'u.email', type: 'string' },
  full_name: { column: 'u.full_name', type: 'string' },
  domain_name: { column: 'u.domain_name', type: 'string' },
  is_active: { column: 'k.is_active', type: 'boolean' },
  is_admin: { column: 'k.is_admin', type: 'boolean' },
  resource_policy: { column: 'k.resource_policy', type: 'string' },
  rate_limit: { column: 'k.rate_limit', type: 'number' },
  num_queries: { column: 'k.num_queries', type: 'number' },
  created_at: { column: 'k.created_at', type: 'datetime' },
  modified_at: { column: 'k.modified_at', type: 'datetime' },
  last_used: { column: 'k.last_used', type: 'datetime' },
  ssh_public_key: { column: 'k.ssh_public_key', type: 'string' },
};

function keypairsFrom(ctx: GqlContext) {
  return dbOf(ctx).selectFrom('keypairs as k').innerJoin('users as u', 'u.uuid', 'k.user_id');
}

function selectKeypair<Q extends ReturnType<typeof keypairsFrom>>(qb: Q) {
  return qb.select([
    'k.access_key',
    'k.secret_key',
    'k.user_id',
    'k.is_active',
    'k.is_admin',
    'k.resource_policy',
    'k.created_at',
    'k.modified_at',
    'k.last_used',
    'k.rate_limit',
    'k.num_queries',
    'k.ssh_public_key',
    'u.email',
    'u.full_name',
    'u.domain_name',
    'u.role',
  ]);
}

type KeypairRow = Awaited<ReturnType<ReturnType<typeof selectKeypair>['executeTakeFirstOrThrow']>> & { revealed?: boolean };

function loadKeypair(ctx: GqlContext, accessKey: string): Promise<KeypairRow | undefined> {
  return selectKeypair(keypairsFrom(ctx)).where('k.access_key', '=', accessKey).executeTakeFirst();
}

interface KeypairFilterArgs {
  domain_name?: string | null;
  email?: string | null;
  is_active?: boolean | null;
}

function scopedKeypairs(ctx: GqlContext, args: KeypairFilterArgs) {
  const p = ctx.principal;
  let q = keypairsFrom(ctx);
  if (isAdmin(p)) {
    const domain = adminDomainScope(ctx, args.domain_name);
    if (domain) q = q.where('u.domain_name', '=', domain);
    if (args.email) q = q.where('u.email', '=', args.email);
  } else {
    if (args.domain_name && args.domain_name !== p.domainName) throw new Problem('generic-forbidden', 'You may read only your own keypairs.');
    if (args.email && args.email !== p.email) throw new Problem('generic-forbidden', 'You may read only your own keypairs.');
    q = q.where('k.user_id', '=', p.userId);
  }
  if (args.is_active !== undefined && args.is_active !== null) q = q.where('k.is_active', '=', args.is_active);
  return q;
}

/** The keypair a management operation targets, within the caller's reach. */
async function managedKeypair(ctx: GqlContext, accessKey: string): Promise<KeypairRow> {
  requireAdmin(ctx);
  const row = await loadKeypair(ctx, accessKey);
  if (!row || !adminSees(ctx, row.domain_name)) throw notFound('keypair');
  checkManaged(ctx.principal, row);
  return row;
}

async function checkKeypairPolicy(ctx: GqlContext, name: string): Promise<void> {
  const found = await dbOf(ctx).selectFrom('keypair_resource_policies').select('name').where('name', '=', name).executeTakeFirst();
  if (!found) throw invalid(`No such keypair resource policy: ${name}`);
}

interface KeypairProps {
  is_active?: boolean | null;
  is_admin?: boolean | null;
  resource_policy?: string | null;
  rate_limit?: number | null;
}

export const keypairResolvers: ResolverMap = {
  Query: {
    keypair: async (_root, args: { access_key?: string | null; domain_name?: string | null }, ctx) => {
      const row = await loadKeypair(ctx, args.access_key ?? ctx.principal.accessKey);
      if (!row) return null;
      const visible = row.user_id === ctx.principal.userId || adminSees(ctx, row.domain_name);
      if (!visible || (args.domain_name && row.domain_name !== args.domain_name)) return null;
      return row;
    },
    keypairs: (_root, args: KeypairFilterArgs, ctx) => selectKeypair(scopedKeypairs(ctx, args)).orderBy('k.created_at').orderBy('k.access_key').execute(),
    keypair_list: (_root, args: KeypairFilterArgs & ListArgs, ctx) =>
      runList(scopedKeypairs(ctx, args), args, KEYPAIR_FIELDS, 'k.access_key', (qb) => selectKeypair(qb as ReturnType<typeof keypairsFrom>)),
  },
  KeyPair: {
    id: (kp: KeypairRow) => kp.access_key,
    user_id: (kp: KeypairRow) => kp.email,
    user: (kp: KeypairRow) => kp.user_id,
    compute_sessions: (kp: KeypairRow, args: { status?: string | null }, ctx: GqlContext) => sessionsOfKeypair(ctx, kp.access_key, args.status),
    concurrency_used: async (kp: KeypairRow, _args, ctx: GqlContext) => {
      const load = loader<string, number>(ctx, 'keypair.concurrency_used', async (keys) => {
        const rows = await dbOf(ctx)
          .selectFrom('sessions')
          .select(['access_key', (eb) => eb.fn.countAll().as('count')])
          .where('access_key', 'in', keys)
          .where('status', 'in', [...COUNTING_QUOTA])
          .where('session_type', '<>', 'system')
          .groupBy('access_key')
          .execute();
        return new Map(rows.map((r) => [r.access_key, Number(r.count)]));
      });
      return (await load.load(kp.access_key)) ?? 0;
    },
    concurrency_limit: async (kp: KeypairRow, _args, ctx: GqlContext) => {
      const load = loader<string, number>(ctx, 'keypair.concurrency_limit', async (names) => {
        const rows = await dbOf(ctx).selectFrom('keypair_resource_policies').select(['name', 'max_concurrent_sessions']).where('name', 'in', names).execute();
        return new Map(rows.map((r) => [r.name, r.max_concurrent_sessions]));
      });
      return (await load.load(kp.resource_policy)) ?? null;
    },
    secret_key: (kp: KeypairRow, _args, ctx: GqlContext) =>
      kp.revealed || kp.user_id === ctx.principal.userId || isSuperadmin(ctx.principal) ? kp.secret_key : null,
    user_info: (kp: KeypairRow) => ({ email: kp.email, full_name: kp.full_name }),
    projects: async (kp: KeypairRow, _args, ctx: GqlContext) => {
      const load = loader<string, { name: string }[]>(ctx, 'keypair.projects', async (ids) => {
        const rows = await dbOf(ctx)
          .selectFrom('association_groups_users as a')
          .innerJoin('groups as g', 'g.id', 'a.group_id')
          .select(['a.user_id', 'g.name'])
          .where('a.user_id', 'in', ids)
          .orderBy('g.name')
          .execute();
        return groupBy(rows, (r) => r.user_id);
      });
      return ((await load.load(kp.user_id)) ?? []).map((r) => r.name);
    },
  },
  Mutation: {
    create_keypair: mutation(async (args: { user_id: string; props: KeypairProps }, ctx) => {
      requireAdmin(ctx);
      const uuid = args.user_id.includes('@') ? null : canonicalUuid(args.user_id);
      const user = checkManaged(ctx.principal, uuid ? await loadUserBy(ctx.app, 'uuid', uuid) : await loadUserBy(ctx.app, 'email', args.user_id));
      const props = args.props ?? {};
      const policy = props.resource_policy ?? 'default';
      await checkKeypairPolicy(ctx, policy);
      nonNegative(props.rate_limit, 'rate_limit');
      const accessKey = generateAccessKey();
      await dbOf(ctx).transaction().execute(async (trx) => {
        await trx
          .insertInto('keypairs')
          .values({
            access_key: accessKey,
            secret_key: generateSecretKey(),
            user_id: user.uuid,
            is_active: props.is_active ?? true,
            is_admin: props.is_admin ?? false,
            resource_policy: policy,
            rate_limit: props.rate_limit === undefined ? 10000 : props.rate_limit,
          })
          .execute();
        if (!user.main_access_key) await trx.updateTable('users').set({ main_access_key: accessKey }).where('uuid', '=', user.uuid).execute();
      });
      ctx.app.keypairs.invalidate(accessKey);
      const created = await loadKeypair(ctx, accessKey);
      return { keypair: created && { ...created, revealed: true } };
    }),

    modify_keypair: mutation(async (args: { access_key: string; props: KeypairProps }, ctx) => {
      const row = await managedKeypair(ctx, args.access_key);
      const props = given(args.props);
      const set: Updateable<KeypairTable> = { modified_at: new Date() };
      if (props.is_active !== undefined && props.is_active !== null) set.is_active = props.is_active;
      if (props.is_admin !== undefined && props.is_admin !== null) set.is_admin = props.is_admin;
      if (props.resource_policy) {
        await checkKeypairPolicy(ctx, props.resource_policy);
        set.resource_policy = props.resource_policy;
      }
      if (props.rate_limit !== undefined) {
        nonNegative(props.rate_limit, 'rate_limit');
        set.rate_limit = props.rate_limit;
      }
      await dbOf(ctx).updateTable('keypairs').set(set).where('access_key', '=', row.access_key).execute();
      ctx.app.keypairs.invalidate(row.access_key);
      return { keypair: await loadKeypair(ctx, row.access_key) };
    }),

    delete_keypair: mutation(async (args: { access_key: string }, ctx) => {
      const row = await managedKeypair(ctx, args.access_key);
      const owner = await loadUserBy(ctx.app, 'uuid', row.user_id);
      if (owner?.main_access_key === row.access_key) throw new Problem('generic-bad-request', 'Cannot delete the main access key of a user.');
      await dbOf(ctx).deleteFrom('keypairs').where('access_key', '=', row.access_key).execute();
      ctx.app.keypairs.invalidate(row.access_key);
    }),
  },
};
