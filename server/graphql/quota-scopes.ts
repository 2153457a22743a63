/**
 * Quota scopes with Backend.AI's names: `quota_scope(storage_host_name, quota_scope_id)`, `set_quota_scope` and
 * `unset_quota_scope`. The rules are REST's `/folders/_/quota` (server/storage/quota-scope.ts, one implementation);
 * unset drops the scope's own limit, which leaves the policy's `max_quota_scope_size` (or no limit).
 */
import { Buffer } from 'node:buffer';
import { readQuotaScope, resolveQuotaScope, writeQuotaScope, type QuotaScopeRef } from '../storage/quota-scope';
import { scopeUsage } from '../storage/quota';
import { mutation, type GqlContext, type ResolverMap } from './context';

export const quotaScopeTypeDefs = /* GraphQL */ `
  type QuotaDetails {
    usage_bytes: BigInt
    usage_count: BigInt
    hard_limit_bytes: BigInt
  }

  type QuotaScope {
    "Relay-style id: base64 of QuotaScope:<storage_host_name>/<quota_scope_id>."
    id: ID!
    quota_scope_id: String!
    storage_host_name: String!
    details: QuotaDetails!
  }

  input QuotaScopeInput {
    "Bytes; 0 or less means the policy maximum."
    hard_limit_bytes: BigInt
  }

  type SetQuotaScope {
    ok: Boolean
    msg: String
    quota_scope: QuotaScope
  }

  type UnsetQuotaScope {
    ok: Boolean
    msg: String
    quota_scope: QuotaScope
  }

  extend type Query {
    "A quota scope (user:<uuid> or project:<uuid>) on a storage host, with its usage and limit."
    quota_scope(storage_host_name: String!, quota_scope_id: String!): QuotaScope
  }

  extend type Mutation {
    set_quota_scope(quota_scope_id: String!, storage_host_name: String!, props: QuotaScopeInput!): SetQuotaScope
    unset_quota_scope(quota_scope_id: String!, storage_host_name: String!): UnsetQuotaScope
  }
`;

interface ScopeArgs {
  quota_scope_id: string;
  storage_host_name: string;
}

/** The answer's QuotaScope: usage measured now, the effective limit. */
async function shape(ctx: GqlContext, scope: QuotaScopeRef) {
  const [figures, usage] = await Promise.all([readQuotaScope(ctx.app, ctx.principal, scope), scopeUsage(ctx.app, scope.id)]);
  return {
    id: Buffer.from(`QuotaScope:${scope.host}/${scope.id}`).toString('base64'),
    quota_scope_id: scope.id,
    storage_host_name: scope.host,
    details: { usage_bytes: usage.usedBytes, usage_count: usage.fileCount, hard_limit_bytes: figures.limit_bytes },
  };
}

async function setLimit(ctx: GqlContext, args: ScopeArgs, bytes: number) {
  const scope = await resolveQuotaScope(ctx.app, args.quota_scope_id, args.storage_host_name);
  await writeQuotaScope(ctx.app, ctx.principal, scope, bytes);
  return { quota_scope: await shape(ctx, scope) };
}

export const quotaScopeResolvers: ResolverMap = {
  Query: {
    quota_scope: async (_root, args: ScopeArgs, ctx) => shape(ctx, await resolveQuotaScope(ctx.app, args.quota_scope_id, args.storage_host_name)),
  },
  Mutation: {
    set_quota_scope: mutation((args: ScopeArgs & { props: { hard_limit_bytes?: number | null } }, ctx) => setLimit(ctx, args, args.props.hard_limit_bytes ?? 0)),
    unset_quota_scope: mutation((args: ScopeArgs, ctx) => setLimit(ctx, args, 0)),
  },
};
