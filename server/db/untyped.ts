/**
 * Kysely types over tables a helper cannot name. The helpers that build on them (the list filter and pager, access
 * predicates, select shapes shared by several joins, the PGlite dialect's introspector) serve every table, so their
 * queries are typed by Kysely's own spelling for "any tables": these aliases keep that spelling in one place.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- see above: Kysely's generic form for queries over any table */
import type { ExpressionBuilder, Kysely, SelectQueryBuilder } from 'kysely';

export type AnySelect<O = any> = SelectQueryBuilder<any, any, O>;
export type AnyExpressionBuilder = ExpressionBuilder<any, any>;
export type AnyKysely = Kysely<any>;
