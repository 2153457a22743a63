// Slurm output parsers: real outputs captured from the test cluster (Slurm 22.05, fixtures/slurm-22.05/) and
// hand-made odd ones. Bad output is an error entry or null, never an exception.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  nodeAlive, parseDurationMinutes, parseGres, parseJob, parseJobs, parseNodes, parsePartitions, parseSqueueJson,
} from '../../server/agents/slurm/parse';

const fixture = (name: string) => readFileSync(path.join(__dirname, 'fixtures/slurm-22.05', name), 'utf8');

// A real node line with some fields replaced (the rest as Slurm printed it).
const realNode = fixture('nodes-mixed.txt').split('\n')[1];
const nodeLine = (replace: Record<string, string | null>) => {
  let line = realNode;
  for (const [key, value] of Object.entries(replace)) {
    line = value === null ? line.replace(new RegExp(` ${key}=\\S*`), '') : line.replace(new RegExp(`(?<=\\s|^)${key}=\\S*`), `${key}=${value}`);
  }
  return line;
};
const realJob = fixture('job-running.txt').trim();
const jobLine = (replace: Record<string, string | null>) => {
  let line = realJob;
  for (const [key, value] of Object.entries(replace)) {
    // JobName's value holds a space in the fixture ('two words'): replace up to UserId.
    const current = key === 'JobName' ? / JobName=.*? UserId=/ : new RegExp(` ${key}=\\S*`);
    line = line.replace(current, value === null ? (key === 'JobName' ? ' UserId=' : '') : key === 'JobName' ? ` JobName=${value} UserId=` : ` ${key}=${value}`);
  }
  return line;
};

describe('parseNodes', () => {
  it('reads idle and mixed nodes with their capacity and allocation', () => {
    const { nodes, errors } = parseNodes(fixture('nodes-mixed.txt'));
    expect(errors).toEqual([]);
    expect(nodes).toEqual([
      { name: 'node1', addr: '10.77.0.11', hostname: 'node1', state: 'MIXED', alive: true, cpus: 4, allocCpus: 1, realMemoryMb: 4000, allocMemMb: 100, gres: {}, partitions: ['berth'], reason: null },
      { name: 'node2', addr: '10.77.0.12', hostname: 'node2', state: 'IDLE', alive: true, cpus: 4, allocCpus: 0, realMemoryMb: 4000, allocMemMb: 0, gres: {}, partitions: ['berth'], reason: null },
    ]);
  });

  it('reads a node that stopped responding, and the reason Slurm gave (a value with spaces)', () => {
    const { nodes, errors } = parseNodes(fixture('nodes-down.txt'));
    expect(errors).toEqual([]);
    expect(nodes.map((n) => [n.name, n.state, n.alive])).toEqual([['node1', 'IDLE', true], ['node2', 'DOWN+NOT_RESPONDING', false]]);
    expect(nodes[1].reason).toBe('Not responding [root@2026-11-25T02:57:14]');
  });

  it('reads a drained node whose reason holds `=` and a key of its own without taking it for a field', () => {
    const { nodes, errors } = parseNodes(fixture('node-drained.txt'));
    expect(errors).toEqual([]);
    expect(nodes[0]).toMatchObject({ name: 'node2', state: 'IDLE+DRAIN', alive: false, partitions: ['berth'] });
    expect(nodes[0].reason).toBe('maint key=value Partitions=evil [root@2026-11-25T03:04:41]');
  });

  it('keeps an OS value with spaces and `#` out of the fields after it', () => {
    const { nodes } = parseNodes(nodeLine({ OS: 'Linux 6.1.0-28-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22) ' }));
    expect(nodes[0]).toMatchObject({ realMemoryMb: 4000, cpus: 4 });
  });

  it('reports nodes with odd names or addresses as errors with their line, and keeps the others', () => {
    const odd = ['node;rm', 'node$(x)', 'nö', 'a/b'].map((name) => nodeLine({ NodeName: name }));
    const text = [realNode, ...odd, nodeLine({ NodeAddr: '10.0.0.1;x' }), nodeLine({ NodeAddr: 'fe80::1' })].join('\n');
    const { nodes, errors } = parseNodes(text);
    expect(nodes.map((n) => n.name)).toEqual(['node2']);
    expect(errors).toHaveLength(6);
    expect(errors[0]).toContain('NodeName=node;rm');
    expect(errors[4]).toMatch(/node2: address with unexpected characters: NodeName=node2/);
  });

  it('reports a node name with a space (NodeName=bad name) as an error', () => {
    const { nodes, errors } = parseNodes(realNode.replace('NodeName=node2', 'NodeName=bad name'));
    expect(nodes).toEqual([]);
    expect(errors).toHaveLength(1);
  });

  it('reports numbers that do not parse and missing required fields; optional ones default', () => {
    const { nodes, errors } = parseNodes([
      nodeLine({ CPUTot: 'four' }),
      nodeLine({ RealMemory: '4000M' }),
      nodeLine({ RealMemory: null }),
      nodeLine({ State: null }),
      nodeLine({ CPUAlloc: '-1' }),
      nodeLine({ CPUAlloc: null, AllocMem: null, Partitions: null, NodeHostName: null }),
      'NodeName=lonely',
      'hello world',
    ].join('\n'));
    expect(errors.map((e) => e.split(':')[0])).toEqual([
      'node node2', 'node node2', 'node node2', 'node node2', 'node node2', 'node lonely', 'no NodeName',
    ]);
    expect(errors[0]).toContain('CPUTot is not a number');
    expect(errors[2]).toContain('RealMemory is missing');
    expect(nodes).toEqual([expect.objectContaining({ name: 'node2', allocCpus: 0, allocMemMb: 0, partitions: [], hostname: 'node2' })]);
  });

  it('ignores unknown keys (a newer Slurm) and reads GRES', () => {
    const line = nodeLine({ Gres: 'gpu:a100:2(S:0-1),gpu:v100:1(S:1),mps:200' }) + ' FancyNewKey=1 NewerThing=a,b';
    const { nodes, errors } = parseNodes(line);
    expect(errors).toEqual([]);
    expect(nodes[0].gres).toEqual({ gpu: 3, mps: 200 });
  });

  it('falls back to the node name for a missing address', () => {
    const { nodes } = parseNodes(nodeLine({ NodeAddr: null, NodeHostName: null }));
    expect(nodes[0]).toMatchObject({ addr: 'node2', hostname: 'node2' });
  });

  it('skips blank lines and gives nothing for empty output', () => {
    expect(parseNodes('')).toEqual({ nodes: [], errors: [] });
    expect(parseNodes('\n\n').nodes).toEqual([]);
  });
});

describe('nodeAlive', () => {
  const cases: Array<[string, boolean]> = [
    ['IDLE', true], ['MIXED', true], ['ALLOCATED', true], ['IDLE+COMPLETING', true], ['IDLE+RESERVED', true], ['idle', true],
    ['ALLOCATED*', false], ['IDLE~', false], ['IDLE+DRAIN', false], ['MIXED+DRAIN', false], ['drained', false], ['draining', false],
    ['DOWN', false], ['DOWN+NOT_RESPONDING', false], ['MIXED+NOT_RESPONDING', false], ['IDLE+POWERED_DOWN', false],
    ['UNKNOWN', false], ['FAIL', false], ['ALLOCATED+FAIL', false], ['FUTURE', false], ['', false],
  ];
  it.each(cases)('%s → %s', (state, alive) => expect(nodeAlive(state)).toBe(alive));
});

describe('parseGres', () => {
  const cases: Array<[string, Record<string, number> | null]> = [
    ['(null)', {}], ['', {}], ['gpu:2', { gpu: 2 }], ['gpu:a100:2(S:0)', { gpu: 2 }], ['gpu:a100:2(S:0,1),mps:200', { gpu: 2, mps: 200 }],
    ['gpu', { gpu: 1 }], ['gpu:a100', { gpu: 1 }], ['gpu:1g.5gb', { gpu: 1 }], ['mps:1K', { mps: 1024 }],
    ['gpu:x:y:z', null], ['gpu:a100:two', null], [':2', null], ['gpu:2;rm', null], ['gpu:a;b:2', null],
  ];
  it.each(cases)('%s', (text, expected) => expect(parseGres(text)).toEqual(expected));
});

describe('parseJob', () => {
  it('reads a running two-node job with a name holding a space and a comment', () => {
    expect(parseJob(fixture('job-running.txt'))).toEqual({
      jobId: '3', name: 'two words', state: 'RUNNING', reason: null, exitCode: 0, signal: null, nodeList: 'node[1-2]', batchHost: 'node1', comment: 'berth:abc',
    });
  });

  it('reads running, failed and pending jobs from several lines', () => {
    const { jobs, errors } = parseJobs(fixture('jobs-running-failed-pending.txt'));
    expect(errors).toEqual([]);
    expect(jobs.map((j) => [j.jobId, j.name, j.state, j.reason, j.exitCode, j.nodeList, j.batchHost])).toEqual([
      ['1', 'ok job', 'RUNNING', null, 0, 'node1', 'node1'],
      ['2', 'fail', 'FAILED', 'NonZeroExitCode', 3, 'node1', 'node1'],
      ['3', 'big', 'PENDING', 'Resources', 0, null, null],
    ]);
  });

  it('reads a job whose node failed, and one Slurm put back in the queue', () => {
    expect(parseJob(fixture('job-node-fail.txt'))).toMatchObject({ jobId: '9', state: 'NODE_FAIL', reason: 'NodeDown', nodeList: 'node2' });
    expect(parseJob(fixture('job-requeued.txt'))).toMatchObject({ jobId: '10', state: 'PENDING', nodeList: null, batchHost: null });
  });

  it('refuses a record whose name imitates status fields (newline, JobState=, ExitCode=) rather than trust it', () => {
    const text = fixture('job-hostile-name.txt');
    expect(text).toContain('JobState=COMPLETED ExitCode=0:0 UserId=');
    expect(parseJob(text)).toBeNull();
    expect(parseJobs(text).jobs).toEqual([]);
  });

  it('refuses names and comments that contain the keys status is read from', () => {
    for (const name of ['x UserId=root(0) GroupId=root(0)', 'a\nJobState=COMPLETED', 'n BatchHost=node9', 'c Comment=x']) {
      expect(parseJob(jobLine({ JobName: name }))).toBeNull();
    }
    expect(parseJob(jobLine({ Comment: 'x NodeList=evil[1-9]' }))).toBeNull();
  });

  it('keeps names and comments with spaces, quotes, `=` and leading spaces verbatim', () => {
    const name = ` $(touch /tmp/x) "q" 'a=b' c=d; rm -rf / `;
    expect(parseJob(jobLine({ JobName: name }))).toMatchObject({ name, state: 'RUNNING', batchHost: 'node1' });
    const commented = parseJob(realJob.replace('Comment=berth:abc', 'Comment=k=v  two words'));
    expect(commented?.comment).toBe('k=v  two words');
  });

  it('reads a signal from ExitCode code:signal, and tolerates missing or odd fields', () => {
    expect(parseJob(jobLine({ ExitCode: '0:9' }))).toMatchObject({ exitCode: 0, signal: 9 });
    expect(parseJob(jobLine({ ExitCode: 'weird' }))).toMatchObject({ exitCode: null, signal: null });
    expect(parseJob(jobLine({ ExitCode: null, NodeList: null, BatchHost: null, Comment: null, Reason: null }))).toMatchObject({
      exitCode: null, nodeList: null, batchHost: null, comment: null, reason: null,
    });
    expect(parseJob(`${realJob} BrandNewKey=1 2 3 Other=x`)).toMatchObject({ jobId: '3', state: 'RUNNING' });
  });

  it('gives null for what is not one job record', () => {
    for (const text of ['', '\n', 'slurm_load_jobs error: Invalid job id specified', fixture('partitions.txt'), 'JobId=abc JobName=x JobState=RUNNING',
      jobLine({ JobState: null }), jobLine({ JobState: 'running; rm' }), realJob.replace('JobId=3 ', 'JobId=3 JobId=4 ')]) {
      expect(parseJob(text)).toBeNull();
    }
  });

  it('reports unreadable records among several', () => {
    const { jobs, errors } = parseJobs(`${realJob}\nJobId=5 nonsense\n${realJob.replace('JobId=3', 'JobId=4')}\n`);
    expect(jobs.map((j) => j.jobId)).toEqual(['3', '4']);
    expect(errors).toEqual(['unreadable job record: JobId=5 nonsense']);
  });
});

describe('parseSqueueJson', () => {
  it('reads jobs whatever their names hold, with exit codes and signals from the wait status', () => {
    const { jobs, errors } = parseSqueueJson(fixture('squeue.json'));
    expect(errors).toEqual([]);
    expect(jobs).toEqual([
      { jobId: '1', name: '-x', state: 'CANCELLED', reason: null, exitCode: 0, signal: 15, nodeList: 'node1', batchHost: 'node1', comment: '--wrap=evil' },
      { jobId: '2', name: `evil $(touch /tmp/x) "q" 's\nline2 JobState=COMPLETED ExitCode=0:0`, state: 'COMPLETED', reason: null, exitCode: 0, signal: null, nodeList: 'node1', batchHost: 'node1', comment: 'c=1 NodeList=zz\nx' },
      { jobId: '3', name: 'two words', state: 'COMPLETED', reason: null, exitCode: 0, signal: null, nodeList: 'node[1-2]', batchHost: 'node1', comment: 'berth:abc' },
      { jobId: '4', name: 'fail3', state: 'FAILED', reason: 'NonZeroExitCode', exitCode: 3, signal: null, nodeList: 'node1', batchHost: 'node1', comment: null },
    ]);
  });

  it('reads the newer shapes (state list, exit code object)', () => {
    const text = JSON.stringify({ jobs: [{ job_id: 7, job_state: ['RUNNING'], name: 'n', exit_code: { status: ['EXITED'], return_code: { set: true, number: 2 }, signal: { id: { set: true, number: 0 } } }, nodes: 'node1', batch_host: 'node1' }] });
    expect(parseSqueueJson(text).jobs[0]).toMatchObject({ jobId: '7', state: 'RUNNING', exitCode: 2, signal: null, comment: null });
  });

  it('reports what is not squeue JSON, and jobs it cannot read', () => {
    expect(parseSqueueJson('squeue: error').errors).toEqual(['squeue --json: not JSON']);
    expect(parseSqueueJson('{}').errors).toEqual(['squeue --json: no jobs array']);
    expect(parseSqueueJson('null').errors).toEqual(['squeue --json: no jobs array']);
    const { jobs, errors } = parseSqueueJson(JSON.stringify({ jobs: [{ job_id: '1', job_state: 'RUNNING' }, { job_id: 2, job_state: 'RUNNING; x' }, null, { job_id: 3, job_state: 'PENDING' }] }));
    expect(jobs.map((j) => [j.jobId, j.name, j.nodeList, j.exitCode])).toEqual([['3', '', null, null]]);
    expect(errors).toHaveLength(3);
  });
});

describe('parsePartitions', () => {
  it('reads the test cluster partition', () => {
    expect(parsePartitions(fixture('partitions.txt'))).toEqual([{ name: 'berth', isDefault: true, nodes: 'node[1-2]', maxTime: null }]);
  });

  it('reads time limits and leaves out odd lines', () => {
    const text = [
      'PartitionName=gpu AllowGroups=ALL Default=NO MaxTime=1-00:00:00 Nodes=gpu[01-04] State=UP',
      'PartitionName=short Nodes=n1 MaxTime=30:00 Extra=new key',
      'PartitionName=bad;name Nodes=n1 MaxTime=UNLIMITED',
      'PartitionName=weird MaxTime=soon',
      'NodeName=node1 State=IDLE',
    ].join('\n');
    expect(parsePartitions(text)).toEqual([
      { name: 'gpu', isDefault: false, nodes: 'gpu[01-04]', maxTime: 1440 },
      { name: 'short', isDefault: false, nodes: 'n1', maxTime: 30 },
    ]);
  });
});

describe('parseDurationMinutes', () => {
  const cases: Array<[string, number | null | undefined]> = [
    ['UNLIMITED', null], ['INFINITE', null], ['30', 30], ['30:00', 30], ['30:01', 31], ['1:00:00', 60], ['2-12', 3600],
    ['2-12:30', 3630], ['2-12:30:00', 3630], ['soon', undefined], ['', undefined], ['1:2:3:4', undefined],
  ];
  it.each(cases)('%s', (text, minutes) => expect(parseDurationMinutes(text)).toBe(minutes));
});

describe('never throws', () => {
  const keys = ['NodeName', 'NodeAddr', 'State', 'CPUTot', 'RealMemory', 'Gres', 'Reason', 'OS', 'JobId', 'JobName', 'JobState', 'ExitCode', 'Comment', 'UserId', 'PartitionName', 'MaxTime'];
  const line = fc.array(fc.tuple(fc.constantFrom(...keys), fc.string()), { maxLength: 12 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join(' '));
  it('on arbitrary text and arbitrary Key=Value lines', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), line, fc.json()), (text) => {
      parseNodes(text);
      parseJob(text);
      parseJobs(text);
      parsePartitions(text);
      parseSqueueJson(text);
    }), { numRuns: 500 });
  });
});
