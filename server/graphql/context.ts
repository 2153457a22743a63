/**
 * What every resolver shares: the request context (the app and the caller's Principal), the privilege rules of
 * CONTRACT §2.3 applied to GraphQL, the `{ok, msg, …}` mutation wrapper and a small per-request batch loader.
 */
import { GraphQLError, responsePathAsArray, type GraphQLResolveInfo } from 'graphql';
import type { App } from '../app';
import type { Db } from '../db';
import type { AnyKysely } from '../db/untyped';
import { isAdmin, isSuperadmin, type Principal } from '../auth/principal';
import { Problem } from '../http/problem';
import * as privilege from '../auth/privilege';
import { outsideDomain } from '../auth/privilege';

export interface GqlContext {
  app: App;
  principal: Principal;
  /** Mutation failures answered with `ok: false`; they are listed in `errors` as well. */
  softErrors: GraphQLError[];
  /** One BatchLoader per name; loader() knows each one's key and value types by the name it is filed under. */
  loaders: Map<string, object>;
}

// graphql-js has checked a resolver's root and args against the SDL in schema.ts: that schema, not TypeScript, is
// their type, and each resolver names the fields it reads.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type Resolver<A = any, R = any> = (root: R, args: A, ctx: GqlContext, info: GraphQLResolveInfo) => unknown;
export type ResolverMap = Record<string, Record<string, Resolver>>;

export function dbOf(ctx: GqlContext): Db {
  return ctx.app.db;
}

/** A domain admin: an admin keypair of a user who is not a superadmin (CONTRACT §2.3). */
export function isDomainAdmin(p: Principal): boolean {
  return isAdmin(p) && !isSuperadmin(p);
}

export function requireAdmin(ctx: GqlContext): void {
  privilege.requireAdmin(ctx.principal);
}

export function requireSuperadmin(ctx: GqlContext): void {
  privilege.requireSuperadmin(ctx.principal);
}

export { outsideDomain };

/**
 * The domain an admin operation is confined to: for a superadmin the one asked for (undefined = every domain),
 * for a domain admin always their own (asking for another is refused).
 */
export function adminDomainScope(ctx: GqlContext, requested?: string | null): string | undefined {
  requireAdmin(ctx);
  if (isSuperadmin(ctx.principal)) return requested ?? undefined;
  if (requested && requested !== ctx.principal.domainName) throw outsideDomain();
  return ctx.principal.domainName;
}

/** Refuses unless the caller may manage objects of this domain (superadmin, or admin of that domain). */
export function assertManagesDomain(ctx: GqlContext, domain: string): void {
  privilege.assertManagesDomain(ctx.principal, domain);
}

/** Whether the caller can see objects of this domain at admin level. */
export function adminSees(ctx: GqlContext, domain: string): boolean {
  return privilege.adminSees(ctx.principal, domain);
}

export { noSuch as notFound } from '../auth/privilege';

/** A mutation's input refused (400, invalid-api-params): the pipeline's own refusal under GraphQL's usual name. */
export { badRequest as invalid } from '../http/problem';

/** Maps a database error raised by bad input (constraint, cast) to a Problem; other errors give null. */
export function databaseProblem(error: unknown): Problem | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === '23505') return new Problem('generic-bad-request', 'integrity error: an object with the same identity already exists.');
  if (code === '23503') return new Problem('generic-bad-request', 'integrity error: the object refers to a missing object, or is still referenced.');
  if (code.startsWith('22') || code === '23502' || code === '23514') return new Problem('invalid-api-params', 'The input holds an invalid value.');
  return null;
}

/**
 * Wraps a mutation body: success → `{ok: true, msg: 'success', ...result}`; a refusal for bad input or a missing
 * object → `{ok: false, msg}` plus an entry in `errors`. Privilege refusals (403) and unexpected failures are thrown,
 * so the field answers null with the error listed.
 */
export function mutation<A>(body: (args: A, ctx: GqlContext) => Promise<Record<string, unknown> | void>): Resolver<A> {
  return async (_root, args, ctx, info) => {
    try {
      const extra = await body(args, ctx);
      return { ok: true, msg: 'success', ...(extra ?? {}) };
    } catch (error) {
      const problem = error instanceof Problem ? error : databaseProblem(error);
      if (!problem || problem.status === 401 || problem.status === 403 || problem.status >= 500) throw error;
      ctx.softErrors.push(new GraphQLError(problem.message, { path: responsePathAsArray(info.path), originalError: problem }));
      return { ok: false, msg: problem.message };
    }
  };
}

/** Collects the keys asked for within one turn of the event loop and fetches them with one query. */
export class BatchLoader<K, V> {
  private queue = new Map<K, { resolve: (v: V | undefined) => void; reject: (e: unknown) => void }[]>();

  constructor(private readonly fetch: (keys: K[]) => Promise<Map<K, V>>) {}

  load(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      if (this.queue.size === 0) setImmediate(() => void this.flush());
      const waiting = this.queue.get(key) ?? [];
      waiting.push({ resolve, reject });
      this.queue.set(key, waiting);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = new Map();
    try {
      const found = await this.fetch([...batch.keys()]);
      for (const [key, waiting] of batch) for (const w of waiting) w.resolve(found.get(key));
    } catch (error) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
    }
  }
}

export function loader<K, V>(ctx: GqlContext, name: string, fetch: (keys: K[]) => Promise<Map<K, V>>): BatchLoader<K, V> {
  let found = ctx.loaders.get(name) as BatchLoader<K, V> | undefined;
  if (!found) {
    found = new BatchLoader(fetch);
    ctx.loaders.set(name, found);
  }
  return found;
}

/** Groups rows into a map of lists by a key. */
export function groupBy<K, T>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

/** The association tables that tie scaling groups to a domain or a project, and their key column. */
const SCALING_GROUP_LINKS = { domain: { table: 'sgroups_for_domains', key: 'domain' }, project: { table: 'sgroups_for_groups', key: 'group_id' } } as const;

/** The scaling groups associated with one domain (by name) or project (by id), loaded for all the request asks at once. */
export async function associatedScalingGroups(ctx: GqlContext, of: keyof typeof SCALING_GROUP_LINKS, id: string): Promise<string[]> {
  const { table, key } = SCALING_GROUP_LINKS[of];
  const load = loader<string, { owner: string; scaling_group: string }[]>(ctx, `${of}.scaling_groups`, async (ids) => {
    const rows = await (dbOf(ctx) as AnyKysely).selectFrom(table).select([`${key} as owner`, 'scaling_group']).where(key, 'in', ids).orderBy('scaling_group').execute();
    return groupBy(rows as { owner: string; scaling_group: string }[], (r) => r.owner);
  });
  return ((await load.load(id)) ?? []).map((r) => r.scaling_group);
}

export { given } from '../admin/values';
