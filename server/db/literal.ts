/**
 * Constants the code itself chooses (statuses, kinds), written into the SQL text instead of bound as parameters.
 *
 * PGlite's named statements (./pglite-statements.ts) run on a generic plan from their sixth call: one planned
 * without the parameters' values. For `v.status not in ($1, $2)` PostgreSQL can only guess how many rows pass, and
 * the folder list's generic plan joined 500 folders to their owners, projects, shares and memberships by nested
 * loops, rescanning each small table once per folder (2,000 rescans, 11 ms in WebAssembly); with the statuses
 * written in, the generic plan is the custom plan's hash joins (3 ms) and is still planned only once.
 *
 * Never for a value a request brings: those stay parameters.
 */
import { sql, type RawBuilder } from 'kysely';

export function literal<T extends string>(value: T): RawBuilder<T> {
  return sql.lit(value);
}

export function literals<T extends string>(values: readonly T[]): RawBuilder<T>[] {
  return values.map(literal);
}
