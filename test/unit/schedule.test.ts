import { describe, expect, it } from 'vitest';
import { schedule, type AgentCapacity, type PendingSession, type ScheduleInput } from '../../server/sessions/scheduler/schedule';

const GiB = 2 ** 30;

function session(id: string, over: Partial<PendingSession> = {}): PendingSession {
  return {
    id, accessKey: 'ak1', groupId: 'g1', domainName: 'default', scalingGroup: 'default', priority: 10, createdAt: Number(id.replace(/\D/g, '')) || 0,
    perKernel: { cpu: 1, mem: GiB }, kernelCount: 1, singleNode: true, agentList: null, countsForConcurrency: true, unmetDependencies: 0, startsAt: null, ...over,
  };
}

function agent(id: string, cpu: number, mem = 16 * GiB, usedCpu = 0): AgentCapacity {
  return { id, scalingGroup: 'default', total: { cpu, mem }, free: { cpu: cpu - usedCpu, mem } };
}

function input(over: Partial<ScheduleInput>): ScheduleInput {
  return { pending: [], agents: [], keypairs: new Map(), groups: new Map(), domains: new Map(), selection: 'fifo', placement: 'dispersed', now: 1_000, ...over };
}

describe('selection', () => {
  it('FIFO places the oldest first when only one fits', () => {
    const result = schedule(input({ pending: [session('s2'), session('s1')], agents: [agent('a', 1)] }));
    expect([...result.assigned.keys()]).toEqual(['s1']);
    expect(result.waiting.get('s2')).toBe('no agent has enough free resources');
  });

  it('LIFO places the newest first', () => {
    const result = schedule(input({ pending: [session('s1'), session('s2')], agents: [agent('a', 1)], selection: 'lifo' }));
    expect([...result.assigned.keys()]).toEqual(['s2']);
  });

  it('priority comes before age', () => {
    const result = schedule(input({ pending: [session('s1'), session('s2', { priority: 50 })], agents: [agent('a', 1)] }));
    expect([...result.assigned.keys()]).toEqual(['s2']);
  });

  it('DRF serves the keypair with the smaller dominant share first', () => {
    const keypairs = new Map([
      ['heavy', { slots: {}, using: { cpu: 6 } }],
      ['light', { slots: {}, using: { cpu: 1 } }],
    ]);
    const result = schedule(input({ pending: [session('s1', { accessKey: 'heavy' }), session('s2', { accessKey: 'light' })], agents: [agent('a', 1)], keypairs, selection: 'drf' }));
    expect([...result.assigned.keys()]).toEqual(['s2']);
  });
});

describe('placement', () => {
  const agents = () => [agent('a', 8, 16 * GiB, 6), agent('b', 8, 16 * GiB, 1)];

  it('dispersed picks the emptiest agent', () => {
    expect(schedule(input({ pending: [session('s1')], agents: agents() })).assigned.get('s1')).toEqual(['b']);
  });

  it('concentrated picks the fullest agent that still fits', () => {
    expect(schedule(input({ pending: [session('s1')], agents: agents(), placement: 'concentrated' })).assigned.get('s1')).toEqual(['a']);
  });

  it('round-robin rotates over agents', () => {
    const result = schedule(input({ pending: [session('s1'), session('s2'), session('s3')], agents: [agent('a', 8), agent('b', 8)], placement: 'roundrobin' }));
    expect([...result.assigned.values()].map((v) => v[0])).toEqual(['a', 'b', 'a']);
  });

  it('single-node puts every kernel on one agent; multi-node spreads them', () => {
    const single = schedule(input({ pending: [session('s1', { kernelCount: 2, perKernel: { cpu: 2 } })], agents: [agent('a', 3), agent('b', 3)] }));
    expect(single.assigned.has('s1')).toBe(false);
    const multi = schedule(input({ pending: [session('s1', { kernelCount: 2, perKernel: { cpu: 2 }, singleNode: false })], agents: [agent('a', 3), agent('b', 3)] }));
    expect(multi.assigned.get('s1')!.sort()).toEqual(['a', 'b']);
  });

  it('never gives one slot away twice in a pass', () => {
    const pending = Array.from({ length: 10 }, (_, i) => session(`s${i}`));
    const result = schedule(input({ pending, agents: [agent('a', 3)] }));
    expect(result.assigned.size).toBe(3);
  });

  it('honours agent_list', () => {
    const result = schedule(input({ pending: [session('s1', { agentList: ['a'] })], agents: [agent('a', 8, 16 * GiB, 6), agent('b', 8)] }));
    expect(result.assigned.get('s1')).toEqual(['a']);
  });
});

describe('admission', () => {
  it('keeps a session whose starts_at is in the future, or whose dependencies are unmet', () => {
    const result = schedule(input({ pending: [session('s1', { startsAt: 5_000 }), session('s2', { unmetDependencies: 1 })], agents: [agent('a', 8)] }));
    expect(result.assigned.size).toBe(0);
    expect(result.waiting.get('s1')).toMatch(/starts_at/);
    expect(result.waiting.get('s2')).toMatch(/dependencies/);
  });

  it('applies keypair, project and domain slot limits, counting what the pass already placed', () => {
    const keypairs = new Map([['ak1', { slots: { cpu: 2 }, using: { cpu: 1 } }]]);
    const groups = new Map([['g2', { slots: { mem: GiB }, using: {} }]]);
    const result = schedule(input({
      pending: [session('s1'), session('s2'), session('s3', { accessKey: 'ak2', groupId: 'g2', perKernel: { cpu: 1, mem: 2 * GiB } })],
      agents: [agent('a', 8)], keypairs, groups,
    }));
    expect([...result.assigned.keys()]).toEqual(['s1']);
    expect(result.waiting.get('s2')).toBe('keypair resource limit reached');
    expect(result.waiting.get('s3')).toBe('project resource limit reached');
  });

  it('applies the concurrency limit, except to internal sessions', () => {
    const keypairs = new Map([['ak1', { slots: {}, using: {}, maxSessions: 1, sessions: 1 }]]);
    const result = schedule(input({ pending: [session('s1'), session('s2', { countsForConcurrency: false })], agents: [agent('a', 8)], keypairs }));
    expect(result.waiting.get('s1')).toBe('keypair concurrency limit reached');
    expect(result.assigned.has('s2')).toBe(true);
  });
});
