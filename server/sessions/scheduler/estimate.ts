/**
 * When pending sessions will start, from the lifetime limits of what holds the capacity they wait for. A pure
 * simulation of the scheduler over time: the sessions holding agents or limits end by their end-by times (the
 * keypair policy's max_session_lifetime counted from creation, a batch session's own batch_timeout counted from
 * RUNNING), reserved sessions join the line at their starts_at, and at every such moment the real scheduling
 * function (./schedule, the same admission rules, selection and placement as a pass) decides who starts; a session
 * it starts holds its capacity until its own end-by in turn. A session's estimate is the moment it starts; it stays
 * unknown when the simulation reaches a holder with no limit (it may never end) before the session starts.
 *
 * What the simulation cannot foresee: sessions submitted later (a higher priority, or any newer one under LIFO,
 * jumps ahead; callers give no estimate under LIFO), sessions waiting for dependencies, and sessions ending early.
 */
import type { Amounts } from '../../resources/slots';
import { schedule, sessionSlots, type AgentCapacity, type PendingSession, type ScheduleInput } from './schedule';

/** How long a session may run, as the culler and the batch runner enforce it. */
export interface Lifetime {
  type: string;
  createdAt: number;
  /** The keypair policy's max_session_lifetime, seconds; 0 = none. */
  maxLifetime: number;
  /** The session's own batch_timeout, seconds (batch sessions), counted from RUNNING. */
  batchTimeout: number | null;
}

/** A session holding capacity now: what it holds, where, and what it counts against. */
export interface Holder {
  /** When it ends at the latest (epoch ms; Infinity: nothing ends it). */
  endBy: number;
  accessKey: string;
  groupId: string;
  domainName: string;
  slots: Amounts;
  /** Whether it counts against the keypair, project and domain limits (and the keypair's concurrency). */
  counts: boolean;
  countsForConcurrency: boolean;
  kernels: { agentId: string; slots: Amounts }[];
}

/** A pass's input (the agents, the limits, the policy, now), with what the simulation plays forward. */
export interface EstimateInput extends Omit<ScheduleInput, 'pending' | 'cursor'> {
  /** In line now (their reserved time reached, dependencies done). */
  pending: (PendingSession & { life: Lifetime })[];
  /** Reserved, joining the line at their startsAt. */
  joining: (PendingSession & { life: Lifetime })[];
  holders: Holder[];
  /** Stop once all of these started (or can no longer be estimated). */
  targets: Set<string>;
}

/** Moments simulated at most: beyond that the answer is "unknown" rather than a slow request. */
const MAX_STEPS = 100;

/** The latest a session ends: its policy's lifetime from creation, its batch timeout from RUNNING. */
export function endBy(life: Lifetime, runningSince: number | null): number {
  let end = Infinity;
  // The culler exempts inference sessions (their service's scaler decides) and ends others past their lifetime.
  if (life.type !== 'inference' && life.maxLifetime > 0) end = life.createdAt + life.maxLifetime * 1000;
  if (life.type === 'batch' && life.batchTimeout && runningSince !== null) end = Math.min(end, runningSince + life.batchTimeout * 1000);
  return end;
}

type Event = { at: number; release: Holder } | { at: number; join: PendingSession & { life: Lifetime } };

/** Session id → estimated start (epoch ms), for the sessions the simulation sees start. Mutates its input. */
export function estimateStarts(input: EstimateInput): Map<string, number> {
  const starts = new Map<string, number>();
  const events: Event[] = [
    ...input.holders.map((release) => ({ at: Math.max(input.now, release.endBy), release })),
    ...input.joining.map((join) => ({ at: Math.max(input.now, join.startsAt ?? input.now), join })),
  ].sort((a, b) => a.at - b.at);
  const byId = new Map(input.agents.map((a) => [a.id, a]));
  let waiting = input.pending;
  let cursor = 0;
  let t = input.now;
  const open = () => [...input.targets].some((id) => !starts.has(id));
  for (let step = 0; step < MAX_STEPS && open(); step++) {
    const result = schedule({ ...input, pending: waiting, now: t, cursor });
    cursor = result.cursor;
    for (const session of waiting.filter((s) => result.assigned.has(s.id))) {
      starts.set(session.id, t);
      insert(events, {
        at: Math.max(t, endBy(session.life, t)),
        release: {
          endBy: endBy(session.life, t), accessKey: session.accessKey, groupId: session.groupId, domainName: session.domainName, slots: sessionSlots(session),
          counts: true, countsForConcurrency: session.countsForConcurrency,
          kernels: result.assigned.get(session.id)!.map((agentId) => ({ agentId, slots: session.perKernel })),
        },
      });
    }
    waiting = waiting.filter((s) => !result.assigned.has(s.id));
    // The next moment anything changes; none with a finite time: the rest never start as far as anyone can tell.
    if (!events.length || events[0].at === Infinity) break;
    t = events[0].at;
    while (events.length && events[0].at <= t) {
      const event = events.shift()!;
      if ('join' in event) waiting = [...waiting, event.join];
      else release(event.release, byId, input);
    }
  }
  return starts;
}

function release(h: Holder, agents: Map<string, AgentCapacity>, input: EstimateInput): void {
  for (const k of h.kernels) {
    const agent = agents.get(k.agentId);
    if (agent) for (const [slot, v] of Object.entries(k.slots)) agent.free[slot] = (agent.free[slot] ?? 0) + v;
  }
  if (!h.counts) return;
  for (const scope of [input.keypairs.get(h.accessKey), input.groups.get(h.groupId), input.domains.get(h.domainName)]) {
    if (!scope) continue;
    for (const [slot, v] of Object.entries(h.slots)) scope.using[slot] = Math.max(0, (scope.using[slot] ?? 0) - v);
  }
  const keypair = input.keypairs.get(h.accessKey);
  if (keypair?.sessions !== undefined && h.countsForConcurrency) keypair.sessions = Math.max(0, keypair.sessions - 1);
}

/** Keeps `events` sorted by time (ties: in arrival order). */
function insert(events: Event[], event: Event): void {
  let i = events.length;
  while (i > 0 && events[i - 1].at > event.at) i--;
  events.splice(i, 0, event);
}
