/**
 * The scheduler as a pure function: pending sessions and agents with free slots in, assignments out. Selection
 * (FIFO, LIFO, DRF) orders the queue; admission checks decide whether a session may start at all; placement
 * (dispersed, concentrated, round-robin) picks agents. No I/O here: the driver (./run) loads the state, calls
 * this inside a transaction and applies the answer.
 */
import type { Amounts } from '../../resources/slots';

export type Selection = 'fifo' | 'lifo' | 'drf';
export type Placement = 'dispersed' | 'concentrated' | 'roundrobin';

export interface PendingSession {
  id: string;
  accessKey: string;
  groupId: string;
  domainName: string;
  scalingGroup: string;
  priority: number;
  createdAt: number;
  /** Slots of one kernel. */
  perKernel: Amounts;
  kernelCount: number;
  /** single-node: every kernel on one agent; multi-node: each kernel anywhere. */
  singleNode: boolean;
  /** Agents the session is restricted to (superadmin's agent_list), if any. */
  agentList: string[] | null;
  /** False for internal sessions (image import), which the concurrency limit does not apply to. */
  countsForConcurrency: boolean;
  /** Dependencies not yet finished successfully. */
  unmetDependencies: number;
  startsAt: number | null;
}

export interface AgentCapacity {
  id: string;
  scalingGroup: string;
  /** Free slots (available minus occupied). */
  free: Amounts;
  /** Total slots, for DRF shares and placement ordering. */
  total: Amounts;
}

export interface ScopeLimit {
  /** Slot limits; a missing slot is unlimited. */
  slots: Amounts;
  /** What the scope already holds. */
  using: Amounts;
  /** Concurrent sessions allowed and currently counted (keypairs only). */
  maxSessions?: number;
  sessions?: number;
}

export interface ScheduleInput {
  pending: PendingSession[];
  agents: AgentCapacity[];
  keypairs: Map<string, ScopeLimit>;
  groups: Map<string, ScopeLimit>;
  domains: Map<string, ScopeLimit>;
  selection: Selection;
  placement: Placement;
  now: number;
  /** Round-robin cursor carried between passes. */
  cursor?: number;
}

export interface ScheduleResult {
  /** session id → one agent id per kernel, in kernel order. */
  assigned: Map<string, string[]>;
  /** session id → why it stays pending. */
  waiting: Map<string, string>;
  cursor: number;
}

function sessionSlots(s: PendingSession): Amounts {
  const out: Amounts = {};
  for (const [k, v] of Object.entries(s.perKernel)) out[k] = v * s.kernelCount;
  return out;
}

function withinLimit(scope: ScopeLimit | undefined, wanted: Amounts): boolean {
  if (!scope) return true;
  for (const [slot, amount] of Object.entries(wanted)) {
    const limit = scope.slots[slot];
    if (limit !== undefined && (scope.using[slot] ?? 0) + amount > limit) return false;
  }
  return true;
}

function charge(scope: ScopeLimit | undefined, wanted: Amounts, countsForConcurrency = true): void {
  if (!scope) return;
  for (const [slot, amount] of Object.entries(wanted)) scope.using[slot] = (scope.using[slot] ?? 0) + amount;
  if (scope.sessions !== undefined && countsForConcurrency) scope.sessions += 1;
}

function fits(wanted: Amounts, free: Amounts): boolean {
  for (const slot in wanted) {
    const amount = wanted[slot];
    if (amount > 0 && amount > (free[slot] ?? 0)) return false;
  }
  return true;
}

function take(free: Amounts, wanted: Amounts): void {
  for (const slot in wanted) free[slot] = (free[slot] ?? 0) - wanted[slot];
}

/** Sum of free slots relative to the agent's size: how empty it is (placement order). */
function emptiness(agent: AgentCapacity): number {
  let share = 0;
  for (const slot in agent.total) if (agent.total[slot] > 0) share += (agent.free[slot] ?? 0) / agent.total[slot];
  return share;
}

function order(input: ScheduleInput, clusterTotal: Amounts): PendingSession[] {
  const queue = [...input.pending];
  if (input.selection === 'drf') {
    // Dominant resource fairness: the keypair with the smallest dominant share goes first.
    const dominant = (ak: string) => {
      const using = input.keypairs.get(ak)?.using ?? {};
      let max = 0;
      for (const slot in clusterTotal) if (clusterTotal[slot] > 0) max = Math.max(max, (using[slot] ?? 0) / clusterTotal[slot]);
      return max;
    };
    const shares = new Map<string, number>();
    for (const s of queue) if (!shares.has(s.accessKey)) shares.set(s.accessKey, dominant(s.accessKey));
    return queue.sort((a, b) => b.priority - a.priority || shares.get(a.accessKey)! - shares.get(b.accessKey)! || a.createdAt - b.createdAt);
  }
  const direction = input.selection === 'lifo' ? -1 : 1;
  return queue.sort((a, b) => b.priority - a.priority || direction * (a.createdAt - b.createdAt));
}

export function schedule(input: ScheduleInput): ScheduleResult {
  const assigned = new Map<string, string[]>();
  const waiting = new Map<string, string>();
  const clusterTotal: Amounts = {};
  for (const agent of input.agents) for (const slot in agent.total) clusterTotal[slot] = (clusterTotal[slot] ?? 0) + agent.total[slot];
  const byGroup = new Map<string, AgentCapacity[]>();
  for (const agent of input.agents) {
    if (!byGroup.has(agent.scalingGroup)) byGroup.set(agent.scalingGroup, []);
    byGroup.get(agent.scalingGroup)!.push(agent);
  }
  let cursor = input.cursor ?? 0;

  const pick = (candidates: AgentCapacity[], wanted: Amounts): AgentCapacity | null => {
    if (input.placement === 'roundrobin') {
      for (let i = 0; i < candidates.length; i++) {
        const agent = candidates[(cursor + i) % candidates.length];
        if (fits(wanted, agent.free)) {
          cursor = (cursor + i + 1) % candidates.length;
          return agent;
        }
      }
      return null;
    }
    let best: AgentCapacity | null = null;
    let bestScore = 0;
    for (const agent of candidates) {
      if (!fits(wanted, agent.free)) continue;
      const score = emptiness(agent);
      if (!best || (input.placement === 'dispersed' ? score > bestScore : score < bestScore)) {
        best = agent;
        bestScore = score;
      }
    }
    return best;
  };

  for (const session of order(input, clusterTotal)) {
    if (session.startsAt !== null && session.startsAt > input.now) {
      waiting.set(session.id, 'starts_at is in the future');
      continue;
    }
    if (session.unmetDependencies > 0) {
      waiting.set(session.id, 'waiting for dependencies');
      continue;
    }
    const keypair = input.keypairs.get(session.accessKey);
    if (session.countsForConcurrency && keypair?.maxSessions !== undefined && keypair.maxSessions > 0 && (keypair.sessions ?? 0) >= keypair.maxSessions) {
      waiting.set(session.id, 'keypair concurrency limit reached');
      continue;
    }
    const total = sessionSlots(session);
    if (!withinLimit(keypair, total)) {
      waiting.set(session.id, 'keypair resource limit reached');
      continue;
    }
    const group = input.groups.get(session.groupId);
    if (!withinLimit(group, total)) {
      waiting.set(session.id, 'project resource limit reached');
      continue;
    }
    const domain = input.domains.get(session.domainName);
    if (!withinLimit(domain, total)) {
      waiting.set(session.id, 'domain resource limit reached');
      continue;
    }
    let candidates = byGroup.get(session.scalingGroup) ?? [];
    if (session.agentList?.length) candidates = candidates.filter((a) => session.agentList!.includes(a.id));
    const chosen: AgentCapacity[] = [];
    if (session.singleNode) {
      const agent = pick(candidates, total);
      if (agent) for (let i = 0; i < session.kernelCount; i++) chosen.push(agent);
    } else {
      const held: AgentCapacity[] = [];
      for (let i = 0; i < session.kernelCount; i++) {
        const agent = pick(candidates, session.perKernel);
        if (!agent) break;
        take(agent.free, session.perKernel); // hold it while placing the next kernel
        held.push(agent);
      }
      for (const agent of held) for (const slot in session.perKernel) agent.free[slot] += session.perKernel[slot];
      if (held.length === session.kernelCount) chosen.push(...held);
    }
    if (chosen.length !== session.kernelCount) {
      waiting.set(session.id, 'no agent has enough free resources');
      continue;
    }
    for (const agent of chosen) take(agent.free, session.perKernel);
    charge(keypair, total, session.countsForConcurrency);
    charge(group, total);
    charge(domain, total);
    assigned.set(session.id, chosen.map((a) => a.id));
  }
  return { assigned, waiting, cursor };
}
