/** Which pending sessions could start now: the one predicate the scheduling pass and the queue view share. */
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/schema';

type SessionsAsS = ExpressionBuilder<Database & { s: Database['sessions'] }, 's'>;

/** `s` is the sessions table: its reserved time is reached and every dependency finished successfully. */
export function couldStartNow(eb: SessionsAsS, now: Date) {
  return eb.and([eb.or([eb('s.starts_at', 'is', null), eb('s.starts_at', '<=', now)]), dependenciesMet(eb)]);
}

/**
 * `s` is the sessions table: every session it depends on finished successfully (or it has none). Written as
 * NOT IN over the (few) sessions still waiting for a dependency, which the database computes once and probes by
 * hash; a correlated NOT EXISTS was planned as one index probe per pending session (1,000 probes for a line of
 * 1,000 on PGlite, which has no statistics until its first ANALYZE). session_id is never null, so NOT IN is exact.
 */
export function dependenciesMet(eb: SessionsAsS) {
  return eb(
    's.id',
    'not in',
    eb
      .selectFrom('session_dependencies as d')
      .innerJoin('sessions as p', 'p.id', 'd.depends_on')
      .select('d.session_id')
      .where((w) => w.not(w.and([w('p.status', '=', 'TERMINATED'), w('p.result', '=', 'success')]))),
  );
}
