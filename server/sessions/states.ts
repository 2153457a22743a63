/** Session and kernel statuses and the state machine of CONTRACT §5.2. */
export const SESSION_STATUSES = [
  'PENDING', 'SCHEDULED', 'PULLING', 'PREPARING', 'RUNNING', 'RESTARTING', 'RUNNING_DEGRADED',
  'TERMINATING', 'TERMINATED', 'ERROR', 'CANCELLED',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

const TRANSITIONS: Record<SessionStatus, SessionStatus[]> = {
  PENDING: ['SCHEDULED', 'TERMINATING', 'TERMINATED', 'ERROR', 'CANCELLED'],
  SCHEDULED: ['PULLING', 'PREPARING', 'TERMINATED', 'ERROR', 'CANCELLED'],
  PULLING: ['PREPARING', 'RUNNING', 'RUNNING_DEGRADED', 'TERMINATED', 'ERROR', 'CANCELLED'],
  PREPARING: ['PULLING', 'RUNNING', 'RUNNING_DEGRADED', 'TERMINATING', 'TERMINATED', 'ERROR', 'CANCELLED'],
  RUNNING: ['RESTARTING', 'RUNNING_DEGRADED', 'TERMINATING', 'TERMINATED', 'ERROR'],
  RESTARTING: ['RUNNING', 'RUNNING_DEGRADED', 'TERMINATING', 'TERMINATED', 'ERROR'],
  RUNNING_DEGRADED: ['RUNNING', 'TERMINATING', 'TERMINATED', 'ERROR'],
  TERMINATING: ['TERMINATED', 'ERROR'],
  ERROR: ['TERMINATING', 'TERMINATED'],
  TERMINATED: [],
  CANCELLED: [],
};

export function canTransition(from: string, to: string): boolean {
  return (TRANSITIONS[from as SessionStatus] ?? []).includes(to as SessionStatus);
}

export const TERMINAL: ReadonlySet<string> = new Set(['TERMINATED', 'CANCELLED']);

/** Statuses in which a session holds agent resources. */
export const OCCUPYING_AGENT: readonly string[] = ['SCHEDULED', 'PULLING', 'PREPARING', 'RUNNING', 'RESTARTING', 'RUNNING_DEGRADED', 'TERMINATING', 'ERROR'];

/** Statuses in which a session counts against user quotas. */
export const COUNTING_QUOTA: readonly string[] = ['SCHEDULED', 'PULLING', 'PREPARING', 'RUNNING', 'RESTARTING', 'RUNNING_DEGRADED', 'ERROR'];

/** A session that is alive for reuse and naming: anything not finished. */
export const LIVE: readonly string[] = ['PENDING', 'SCHEDULED', 'PULLING', 'PREPARING', 'RUNNING', 'RESTARTING', 'RUNNING_DEGRADED', 'TERMINATING', 'ERROR'];

export const SESSION_TYPES = ['interactive', 'batch', 'inference'] as const;
export const CLUSTER_MODES = ['single-node', 'multi-node'] as const;
