/** The pure pass's verdicts (status_data.scheduler) and the scan past an unplaceable head. */
import { describe, expect, it } from 'vitest';
import { PREDICATES, schedule, type AgentCapacity, type PendingSession, type ScheduleInput } from '../../server/sessions/scheduler/schedule';
import { statusInfo } from '../../server/sessions/scheduler/reasons';

const GiB = 2 ** 30;
const session = (id: string, over: Partial<PendingSession> = {}): PendingSession => ({
  id, accessKey: 'ak1', groupId: 'g1', domainName: 'default', scalingGroup: 'default', priority: 10, createdAt: Number(id.replace(/\D/g, '')) || 0,
  perKernel: { cpu: 1, mem: GiB }, kernelCount: 1, singleNode: true, agentList: null, countsForConcurrency: true, unmetDependencies: 0, startsAt: null, ...over,
});
const agent = (id: string, cpu: number, usedCpu = 0): AgentCapacity => ({ id, scalingGroup: 'default', total: { cpu, mem: 16 * GiB }, free: { cpu: cpu - usedCpu, mem: 16 * GiB } });
const input = (over: Partial<ScheduleInput>): ScheduleInput => ({ pending: [], agents: [], keypairs: new Map(), groups: new Map(), domains: new Map(), selection: 'fifo', placement: 'dispersed', now: 1_000, ...over });

describe('verdicts', () => {
  it('lists every failed admission check with Backend.AI names, and the passed ones', () => {
    const result = schedule(input({
      pending: [session('s1', { startsAt: 5_000, unmetDependencies: 2, perKernel: { cpu: 4 } })],
      agents: [agent('a', 8)],
      keypairs: new Map([['ak1', { slots: { cpu: 2 }, using: { cpu: 1 }, maxSessions: 1, sessions: 1 }]]),
      groups: new Map([['g1', { slots: { cpu: 3 }, using: { cpu: 0 } }]]),
      domains: new Map([['default', { slots: { cpu: 100 }, using: {} }]]),
    }));
    const v = result.verdicts.get('s1')!;
    expect(v.failed.map((f) => f.name)).toEqual(['reserved_time', 'dependencies', 'concurrency', 'keypair_resource_limit', 'user_group_resource_limit']);
    expect(v.passed).toEqual(['domain_resource_limit']);
    expect(v.failed[1].msg).toBe('waiting for 2 session(s) it depends on to finish successfully');
    expect(v.failed[3].msg).toBe("it asks cpu 4; your sessions hold cpu 1 of your keypair's resource limit (cpu 2)");
    expect(v.failed[4].msg).toBe("it asks cpu 4, which the project's resource limit (cpu 3) cannot take now");
    expect(statusInfo(v)).toBe(`Starts at ${new Date(5_000).toISOString()} (and 4 more reasons).`);
    expect(result.waiting.get('s1')).toBe('starts_at is in the future');
  });

  it('agent_selection only after every admission check passed; a scheduled session has no verdict', () => {
    const result = schedule(input({ pending: [session('s1'), session('s2', { perKernel: { cpu: 2 }, kernelCount: 3, singleNode: false })], agents: [agent('a', 2)] }));
    expect(result.verdicts.has('s1')).toBe(false);
    const v = result.verdicts.get('s2')!;
    expect(v.failed).toEqual([{ name: 'agent_selection', msg: 'no agent has room for it now (it needs cpu 2 for each of 3 kernels)' }]);
    expect(v.passed).toEqual(PREDICATES.filter((p) => p !== 'agent_selection'));
  });
});

describe('scan past an unplaceable head', () => {
  it('still places smaller sessions behind a head that fits nowhere, and refuses larger ones', () => {
    const pending = [session('s1', { perKernel: { cpu: 8 } }), session('s2', { perKernel: { cpu: 9 } }), session('s3', { perKernel: { cpu: 1 } }), session('s4', { perKernel: { cpu: 2 }, agentList: ['b'] })];
    const result = schedule(input({ pending, agents: [agent('a', 4), agent('b', 4)] }));
    expect([...result.assigned.keys()].sort()).toEqual(['s3', 's4']);
    expect(result.verdicts.get('s2')!.failed[0].name).toBe('agent_selection');
  });

  it('gives the same assignments as placing each session on its own for 2,000 random sessions', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pending = Array.from({ length: 2000 }, (_, i) => session(`s${i}`, { perKernel: { cpu: 1 + Math.floor(rand() * 6), mem: (1 + Math.floor(rand() * 4)) * GiB }, kernelCount: 1 + Math.floor(rand() * 2) }));
    const agents = () => Array.from({ length: 20 }, (_, i) => agent(`a${i}`, 16));
    const result = schedule(input({ pending, agents: agents() }));
    // Reference: the same pass with the shortcut defeated (every session pinned to every agent, which is never memoised).
    const pinned = pending.map((p) => ({ ...p, agentList: agents().map((a) => a.id) }));
    const reference = schedule(input({ pending: pinned, agents: agents() }));
    expect(result.assigned).toEqual(reference.assigned);
  });
});
