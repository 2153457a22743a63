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

/** Backend.AI's predicate names, in the order they are checked. */
export const PREDICATES = ['reserved_time', 'dependencies', 'concurrency', 'keypair_resource_limit', 'user_group_resource_limit', 'domain_resource_limit', 'agent_selection'] as const;
export type Predicate = (typeof PREDICATES)[number];

/** What one pass found for a session it left pending: the checks it failed (with a message for its owner) and passed. */
export interface Verdict {
  failed: { name: Predicate; msg: string }[];
  passed: Predicate[];
}

export interface ScheduleResult {
  /** session id → one agent id per kernel, in kernel order. */
  assigned: Map<string, string[]>;
  /** session id → why it stays pending (the first check it failed). */
  waiting: Map<string, string>;
  /** session id → every check it failed and passed, for status_data.scheduler. */
  verdicts: Map<string, Verdict>;
  cursor: number;
}

/** What a session asks for in all: each kernel's slots times its kernels. */
export function sessionSlots(s: PendingSession): Amounts {
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

/** The short reasons `waiting` has always given. */
const LEGACY_REASON: Record<Predicate, string> = {
  reserved_time: 'starts_at is in the future',
  dependencies: 'waiting for dependencies',
  concurrency: 'keypair concurrency limit reached',
  keypair_resource_limit: 'keypair resource limit reached',
  user_group_resource_limit: 'project resource limit reached',
  domain_resource_limit: 'domain resource limit reached',
  agent_selection: 'no agent has enough free resources',
};

/** Slots as a user reads them: `cpu 2, mem 1 GiB`. */
export function describe(amounts: Amounts, keepZero = false): string {
  const parts = Object.entries(amounts)
    .filter(([, v]) => keepZero || v > 0)
    .map(([k, v]) => (k === 'mem' ? `mem ${gib(v)}` : `${k} ${Number(v.toFixed(3))}`));
  return parts.join(', ') || 'no resources';
}

function gib(bytes: number): string {
  return bytes >= 2 ** 30 ? `${Number((bytes / 2 ** 30).toFixed(2))} GiB` : `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;
}

/**
 * Why `wanted` does not fit under a scope's limit, or null. Only a keypair's own usage is shown; a project's or
 * domain's limit is named with the slots it caps, never what others hold under it.
 */
function overLimit(scope: ScopeLimit | undefined, wanted: Amounts, label: string, own: boolean): string | null {
  if (withinLimit(scope, wanted)) return null;
  const over: Amounts = {};
  const used: Amounts = {};
  for (const [slot, amount] of Object.entries(wanted)) {
    const limit = scope!.slots[slot];
    if (limit !== undefined && (scope!.using[slot] ?? 0) + amount > limit) {
      over[slot] = limit;
      used[slot] = scope!.using[slot] ?? 0;
    }
  }
  const asks = describe(Object.fromEntries(Object.keys(over).map((k) => [k, wanted[k]])));
  return own
    ? `it asks ${asks}; your sessions hold ${describe(used, true)} of ${label} (${describe(over)})`
    : `it asks ${asks}, which ${label} (${describe(over)}) cannot take now`;
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

/** The queue in the policy's order (position 1 first). */
export function order(input: Pick<ScheduleInput, 'pending' | 'keypairs' | 'selection'>, clusterTotal: Amounts): PendingSession[] {
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
  const verdicts = new Map<string, Verdict>();
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

  // Request shapes that found no agent this pass: free slots only shrink during a pass, so a session asking at
  // least as much in every slot cannot be placed either, and the scan past a stuck head stays cheap.
  // Only sessions placed on one agent are remembered: for them fitting is monotone in what they ask.
  const unplaceable: Amounts[] = [];
  const oneAgent = (s: PendingSession) => (s.singleNode || s.kernelCount === 1) && !s.agentList?.length;
  const covers = (wanted: Amounts, failed: Amounts) => Object.keys(failed).every((k) => (wanted[k] ?? 0) >= failed[k]);

  for (const session of order(input, clusterTotal)) {
    const total = sessionSlots(session);
    const keypair = input.keypairs.get(session.accessKey);
    const group = input.groups.get(session.groupId);
    const domain = input.domains.get(session.domainName);
    const verdict: Verdict = { failed: [], passed: [] };
    const check = (name: Predicate, failure: string | null) => {
      if (failure === null) verdict.passed.push(name);
      else verdict.failed.push({ name, msg: failure });
    };
    check('reserved_time', session.startsAt !== null && session.startsAt > input.now ? `starts at ${new Date(session.startsAt).toISOString()}` : null);
    check('dependencies', session.unmetDependencies > 0 ? `waiting for ${session.unmetDependencies} session(s) it depends on to finish successfully` : null);
    const limited = session.countsForConcurrency && keypair?.maxSessions !== undefined && keypair.maxSessions > 0;
    check('concurrency', limited && (keypair!.sessions ?? 0) >= keypair!.maxSessions! ? `waiting for ${keypair!.sessions} session(s) of yours to finish: your keypair allows ${keypair!.maxSessions} at once` : null);
    check('keypair_resource_limit', overLimit(keypair, total, "your keypair's resource limit", true));
    check('user_group_resource_limit', overLimit(group, total, "the project's resource limit", false));
    check('domain_resource_limit', overLimit(domain, total, "the domain's resource limit", false));
    if (verdict.failed.length) {
      waiting.set(session.id, LEGACY_REASON[verdict.failed[0].name]);
      verdicts.set(session.id, verdict);
      continue;
    }
    let candidates = byGroup.get(session.scalingGroup) ?? [];
    if (session.agentList?.length) candidates = candidates.filter((a) => session.agentList!.includes(a.id));
    const chosen: AgentCapacity[] = [];
    const hopeless = oneAgent(session) && unplaceable.some((f) => covers(total, f));
    if (hopeless) {
      // chosen stays empty
    } else if (session.singleNode) {
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
      if (!hopeless && oneAgent(session) && unplaceable.length < 16) unplaceable.push(total);
      waiting.set(session.id, LEGACY_REASON.agent_selection);
      const where = session.singleNode || session.kernelCount === 1 ? 'on one agent' : `for each of ${session.kernelCount} kernels`;
      check('agent_selection', `no agent has room for it now (it needs ${describe(session.singleNode ? total : session.perKernel)} ${where})`);
      verdicts.set(session.id, verdict);
      continue;
    }
    for (const agent of chosen) take(agent.free, session.perKernel);
    charge(keypair, total, session.countsForConcurrency);
    charge(group, total);
    charge(domain, total);
    assigned.set(session.id, chosen.map((a) => a.id));
  }
  return { assigned, waiting, verdicts, cursor };
}
