/**
 * Why a session is pending, in Backend.AI's shape (status_data.scheduler) and in a short sentence for its owner
 * (status_info). The predicates' messages come from ./schedule; this module words them and builds the record.
 */
import { PREDICATES, type Predicate, type Verdict } from './schedule';

export interface SchedulerStatus {
  retries: number;
  last_try: string | null;
  failed_predicates: { name: Predicate; msg: string }[];
  passed_predicates: { name: Predicate }[];
}

/** One sentence a user understands: the first failed check's message, capitalised. */
export function statusInfo(verdict: Verdict): string {
  const first = verdict.failed[0];
  if (!first) return '';
  const more = verdict.failed.length > 1 ? ` (and ${verdict.failed.length - 1} more reason${verdict.failed.length > 2 ? 's' : ''})` : '';
  return `${first.msg[0].toUpperCase()}${first.msg.slice(1)}${more}.`;
}

/** Position and estimated start in words: "3rd in line; start time unknown". */
export function queueWords(position: number | null | undefined, estimatedStart: string | null | undefined): string {
  const place = position ? (position === 1 ? 'next in line' : `number ${position} in line`) : 'not in line yet';
  const start = estimatedStart && estimatedStart !== 'unknown' ? `expected to start ${new Date(estimatedStart).toLocaleString()}` : 'start time unknown';
  return `${place}; ${start}`;
}

/**
 * The record of a session that no pass has looked at yet (its reserved time or dependencies keep it out of
 * passes): the checks known to fail at submission, nothing else claimed passed.
 */
export function submissionVerdict(startsAt: Date | null, dependencies: number, now: Date): Verdict | null {
  const failed: Verdict['failed'] = [];
  if (startsAt && startsAt.getTime() > now.getTime()) failed.push({ name: 'reserved_time', msg: `starts at ${startsAt.toISOString()}` });
  if (dependencies > 0) failed.push({ name: 'dependencies', msg: `waiting for ${dependencies} session(s) it depends on to finish successfully` });
  return failed.length ? { failed, passed: [] } : null;
}

export function schedulerRecord(verdict: Verdict, retries: number, lastTry: Date | null): SchedulerStatus {
  return {
    retries,
    last_try: lastTry ? lastTry.toISOString() : null,
    failed_predicates: verdict.failed,
    passed_predicates: verdict.passed.map((name) => ({ name })),
  };
}

/** Every predicate passed: the verdict of a session the pass scheduled. */
export const ALL_PASSED: Verdict = { failed: [], passed: [...PREDICATES] };
