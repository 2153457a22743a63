/** Which pending sessions could start now: the one predicate the scheduling pass and the queue view share. */
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/schema';

type SessionsAsS = ExpressionBuilder<Database & { s: Database['sessions'] }, 's'>;

/** `s` is the sessions table: its reserved time is reached and every dependency finished successfully. */
export function couldStartNow(eb: SessionsAsS, now: Date) {
  return eb.and([eb.or([eb('s.starts_at', 'is', null), eb('s.starts_at', '<=', now)]), dependenciesMet(eb)]);
}

/** `s` is the sessions table: every session it depends on finished successfully (or it has none). */
export function dependenciesMet(eb: SessionsAsS) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('session_dependencies as d')
        .innerJoin('sessions as p', 'p.id', 'd.depends_on')
        .select('d.depends_on')
        .whereRef('d.session_id', '=', 's.id')
        .where((w) => w.not(w.and([w('p.status', '=', 'TERMINATED'), w('p.result', '=', 'success')]))),
    ),
  );
}
