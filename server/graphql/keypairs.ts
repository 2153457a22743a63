/**
 * Keypairs: a plain user reads only their own; admins read and manage those of their domain's users (never a
 * superadmin's); superadmins all. `secret_key` is shown only to the keypair's owner and to superadmins (and once,
 * in the create_keypair answer, to whoever created it).
 */
import { isAdmin, isSuperadmin } from '../auth/principal';
import { Problem } from '../http/problem';
import { adminDomainScope, adminSees, dbOf, groupBy, loader, mutation, type GqlContext, type ResolverMap } from './context';
import { LIST_ARGS_SDL, runList, fieldsOf, type FieldMap, type ListArgs } from '../db/list-query';
import { keypairsFrom, loadKeypair, selectKeypair, type KeypairProps, type KeypairRow } from '../keypairs/values';
import { createKeypair } from '../keypairs/create';
import { modifyKeypair } from '../keypairs/modify';
import { deleteKeypair } from '../keypairs/delete';
import { COUNTING_QUOTA } from '../sessions/states';
import { sessionsOfKeypair } from './sessions';
import { entityResults, resultTypes } from './sdl';

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

  ${resultTypes({ ...entityResults('KeyPair', 'keypair', ['Create', 'Modify']), DeleteKeyPair: '' })}

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

const KEYPAIR_FIELDS: FieldMap = fieldsOf('k', {
  string: ['access_key', 'user_id:u.email', 'email:u.email', 'full_name:u.full_name', 'domain_name:u.domain_name', 'resource_policy', 'ssh_public_key'],
  number: ['rate_limit', 'num_queries'],
  boolean: ['is_active', 'is_admin'],
  datetime: ['created_at', 'modified_at', 'last_used'],
});

interface KeypairFilterArgs {
  domain_name?: string | null;
  email?: string | null;
  is_active?: boolean | null;
}

function scopedKeypairs(ctx: GqlContext, args: KeypairFilterArgs) {
  const p = ctx.principal;
  let q = keypairsFrom(ctx.app);
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

export const keypairResolvers: ResolverMap = {
  Query: {
    keypair: async (_root, args: { access_key?: string | null; domain_name?: string | null }, ctx) => {
      const row = await loadKeypair(ctx.app, args.access_key ?? ctx.principal.accessKey);
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
    create_keypair: mutation((args: { user_id: string; props: KeypairProps }, ctx) => createKeypair(ctx.app, ctx.principal, args)),

    modify_keypair: mutation((args: { access_key: string; props: KeypairProps }, ctx) => modifyKeypair(ctx.app, ctx.principal, args)),

    delete_keypair: mutation((args: { access_key: string }, ctx) => deleteKeypair(ctx.app, ctx.principal, args)),
  },
};
