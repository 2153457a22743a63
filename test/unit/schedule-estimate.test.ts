/** Estimated starts from lifetime limits: the simulation over the real scheduling function (./estimate). */
import { describe, expect, it } from 'vitest';
import { endBy, estimateStarts, type EstimateInput, type Holder, type Lifetime } from '../../server/sessions/scheduler/estimate';
import type { AgentCapacity, PendingSession } from '../../server/sessions/scheduler/schedule';

const MIN = 60_000;
const NOW = 1_000_000_000;
const life = (over: Partial<Lifetime> = {}): Lifetime => ({ type: 'interactive', createdAt: NOW, maxLifetime: 0, batchTimeout: null, ...over });
const session = (id: string, over: Partial<PendingSession> = {}, lifetime: Partial<Lifetime> = {}): PendingSession & { life: Lifetime } => ({
  id, accessKey: 'ak1', groupId: 'g1', domainName: 'default', scalingGroup: 'default', priority: 10, createdAt: Number(id.replace(/\D/g, '')) || 0,
  perKernel: { cpu: 1 }, kernelCount: 1, singleNode: true, agentList: null, countsForConcurrency: true, unmetDependencies: 0, startsAt: null,
  life: life(lifetime), ...over,
});
/** A session holding `cpu` on agent `agentId` until `end` (Infinity: no limit). */
const holder = (agentId: string, cpu: number, end: number, over: Partial<Holder> = {}): Holder => ({
  endBy: end, accessKey: 'other', groupId: 'g2', domainName: 'default', slots: { cpu }, counts: true, countsForConcurrency: true,
  kernels: [{ agentId, slots: { cpu } }], ...over,
});
const agent = (id: string, cpu: number, used: number): AgentCapacity => ({ id, scalingGroup: 'default', total: { cpu }, free: { cpu: cpu - used } });
const input = (over: Partial<EstimateInput>): EstimateInput => ({
  pending: [], joining: [], holders: [], agents: [], keypairs: new Map(), groups: new Map(), domains: new Map(),
  selection: 'fifo', placement: 'dispersed', now: NOW, targets: new Set(), ...over,
});

describe('endBy', () => {
  it('is the policy lifetime from creation, or the batch timeout from RUNNING, whichever comes first', () => {
    expect(endBy(life({ maxLifetime: 600 }), null)).toBe(NOW + 600_000);
    expect(endBy(life({ type: 'batch', maxLifetime: 600, batchTimeout: 60 }), NOW + MIN)).toBe(NOW + 2 * MIN);
    expect(endBy(life({ type: 'batch', batchTimeout: 60 }), null)).toBe(Infinity); // not running yet: its clock has not started
    expect(endBy(life({ type: 'inference', maxLifetime: 600 }), NOW)).toBe(Infinity); // the culler exempts inference
    expect(endBy(life(), NOW)).toBe(Infinity);
  });
});

describe('estimateStarts', () => {
  it('walks the holders of the agent by their end-by time until enough frees', () => {
    const starts = estimateStarts(input({
      pending: [session('s1', { perKernel: { cpu: 3 } })],
      agents: [agent('a', 4, 4)],
      holders: [holder('a', 1, NOW + 30 * MIN), holder('a', 2, NOW + 10 * MIN), holder('a', 1, NOW + 20 * MIN)],
      targets: new Set(['s1']),
    }));
    expect(starts.get('s1')).toBe(NOW + 20 * MIN);
  });

  it('is unknown when a needed holder has no limit', () => {
    const starts = estimateStarts(input({
      pending: [session('s1', { perKernel: { cpu: 3 } })],
      agents: [agent('a', 4, 4)],
      holders: [holder('a', 2, NOW + 10 * MIN), holder('a', 2, Infinity)],
      targets: new Set(['s1']),
    }));
    expect(starts.has('s1')).toBe(false);
  });

  it('a holder with no limit that is not needed does not matter', () => {
    const starts = estimateStarts(input({
      pending: [session('s1', { perKernel: { cpu: 2 } })],
      agents: [agent('a', 4, 4)],
      holders: [holder('a', 2, NOW + 10 * MIN), holder('a', 2, Infinity)],
      targets: new Set(['s1']),
    }));
    expect(starts.get('s1')).toBe(NOW + 10 * MIN);
  });

  it('concurrency: your own sessions ending by their lifetime let the next one in', () => {
    const mine = (end: number) => holder('a', 1, end, { accessKey: 'ak1' });
    const starts = estimateStarts(input({
      pending: [session('s1')],
      agents: [agent('a', 8, 2)],
      holders: [mine(NOW + 40 * MIN), mine(NOW + 15 * MIN)],
      keypairs: new Map([['ak1', { slots: {}, using: { cpu: 2 }, maxSessions: 2, sessions: 2 }]]),
      targets: new Set(['s1']),
    }));
    expect(starts.get('s1')).toBe(NOW + 15 * MIN);
  });

  it('sessions ahead in line take the freed capacity first, and hold it by their own lifetime', () => {
    // s1 (head) and s2 each need the whole agent; s1 starts when the holder ends, s2 when s1's lifetime ends
    // (an hour from s1's creation, now, as the culler counts it).
    const starts = estimateStarts(input({
      pending: [session('s1', { perKernel: { cpu: 4 } }, { maxLifetime: 3600 }), session('s2', { perKernel: { cpu: 4 } })],
      agents: [agent('a', 4, 4)],
      holders: [holder('a', 4, NOW + 5 * MIN)],
      targets: new Set(['s1', 's2']),
    }));
    expect(starts.get('s1')).toBe(NOW + 5 * MIN);
    expect(starts.get('s2')).toBe(NOW + 60 * MIN);
  });

  it('a reserved session created earlier joins the line at its starts_at and goes first', () => {
    const starts = estimateStarts(input({
      pending: [session('s9', { perKernel: { cpu: 4 } })],
      joining: [session('s1', { perKernel: { cpu: 4 }, startsAt: NOW + 2 * MIN })],
      agents: [agent('a', 4, 4)],
      holders: [holder('a', 4, NOW + 5 * MIN)],
      targets: new Set(['s9']),
    }));
    // s1 is older: FIFO serves it first at +5 min, and it has no limit, so s9's start is unknown.
    expect(starts.get('s1')).toBe(NOW + 5 * MIN);
    expect(starts.has('s9')).toBe(false);
  });

  it('a session that could start now starts now; one larger than any agent never does', () => {
    const starts = estimateStarts(input({
      pending: [session('s1', { perKernel: { cpu: 100 } }), session('s2')],
      agents: [agent('a', 4, 0)],
      holders: [holder('a', 1, NOW + MIN)],
      targets: new Set(['s1', 's2']),
    }));
    expect(starts.get('s2')).toBe(NOW);
    expect(starts.has('s1')).toBe(false);
  });
});
