// SlurmCommands against the real Slurm test cluster (scripts/slurm-cluster.mjs; the test command or
// `node scripts/with-slurm.mjs npx vitest run --project slurm` starts it and sets BERTH_TEST_SLURM_CONF).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlurmCommandError, SlurmCommands, type SubmitOptions } from '../../server/agents/slurm/commands';
import type { SlurmJob } from '../../server/agents/slurm/parse';
import { killSlurmNode, startSlurmNode } from '../../scripts/slurm-cluster.mjs';

const conf = process.env.BERTH_TEST_SLURM_CONF!;
const clusterNodes: Array<{ name: string; addr: string }> = JSON.parse(process.env.BERTH_TEST_SLURM_NODES ?? '[]');
const slurm = new SlurmCommands({ conf });
const ENDED = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE'];

let dir: string;
// The job script: writes where it runs and its arguments, waits until its release file exists (so a test sees it
// RUNNING without guessing times), exits with the code given; SIGUSR1 makes it exit 42.
const SCRIPT = `#!/bin/sh
trap 'exit 42' USR1
echo "host=$(hostname)"
for a in "$@"; do printf 'arg=%s\\n' "$a"; done
while [ ! -e "$1" ]; do sleep 0.1; done
exit "$2"
`;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'berth-slurm-test-'));
  writeFileSync(path.join(dir, 'job.sh'), SCRIPT);
  chmodSync(path.join(dir, 'job.sh'), 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function options(overrides: Partial<SubmitOptions> = {}): SubmitOptions {
  return { jobName: 'berth-test', nodes: 1, ntasks: 1, cpusPerTask: 1, memPerNodeMb: 100, comment: 'berth:test', output: path.join(dir, `out-${Math.random().toString(36).slice(2)}.txt`), workdir: dir, ...overrides };
}

async function submit(release: string, exitCode: number, overrides: Partial<SubmitOptions> = {}, extraArgs: string[] = []) {
  const opts = options(overrides);
  const jobId = await slurm.submit({ script: path.join(dir, 'job.sh'), args: [release, String(exitCode), ...extraArgs], options: opts });
  return { jobId, output: opts.output };
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await probe();
    if (last) return last as T;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

const jobIn = (id: string, states: string[]) => until<SlurmJob>(`job ${id} in ${states}`, async () => {
  const job = await slurm.job(id);
  return job && states.includes(job.state) ? job : null;
});

describe('SlurmCommands on the test cluster', () => {
  it('lists every node alive with the CPUs and memory the cluster declares', async () => {
    const { nodes, errors } = await slurm.nodes();
    expect(errors).toEqual([]);
    expect(nodes.map((n) => ({ name: n.name, addr: n.addr }))).toEqual(clusterNodes);
    for (const node of nodes) expect(node).toMatchObject({ alive: true, cpus: 4, realMemoryMb: 4000, gres: {}, partitions: ['berth'], reason: null });
    expect((await slurm.nodes('berth')).nodes).toHaveLength(clusterNodes.length);
    expect((await slurm.nodes('elsewhere')).nodes).toEqual([]);
  });

  it('reads partitions and the default one, and expands host lists', async () => {
    expect(await slurm.partitions()).toEqual([{ name: 'berth', isDefault: true, nodes: expect.any(String), maxTime: null }]);
    expect(await slurm.defaultPartition()).toBe('berth');
    expect(await slurm.hostnames('node[1-2]')).toEqual(['node1', 'node2']);
    await expect(slurm.hostnames('node1 -h')).rejects.toThrow(TypeError);
    await expect(slurm.hostnames('--help')).rejects.toThrow(TypeError);
  });

  it('runs a job through RUNNING on a node to COMPLETED with its exit code', async () => {
    const release = path.join(dir, 'release-ok');
    const { jobId, output } = await submit(release, 0);
    expect(jobId).toMatch(/^\d+$/);
    const running = await jobIn(jobId, ['RUNNING']);
    expect(clusterNodes.map((n) => n.name)).toContain(running.batchHost);
    expect(await slurm.hostnames(running.nodeList!)).toEqual([running.batchHost]);
    expect(running).toMatchObject({ name: 'berth-test', comment: 'berth:test', exitCode: 0 });
    writeFileSync(release, '');
    const done = await jobIn(jobId, ENDED);
    expect(done).toMatchObject({ state: 'COMPLETED', exitCode: 0, signal: null, batchHost: running.batchHost });
    expect(readFileSync(output, 'utf8')).toContain(`host=${running.batchHost}`);
  });

  it('reports a failing job with its exit code', async () => {
    const release = path.join(dir, 'release-fail');
    writeFileSync(release, '');
    const { jobId } = await submit(release, 7);
    expect(await jobIn(jobId, ENDED)).toMatchObject({ state: 'FAILED', exitCode: 7, reason: 'NonZeroExitCode' });
  });

  it('submits a hostile name, comment and arguments without a shell: run verbatim, stored verbatim', async () => {
    const marker = path.join(dir, 'pwned');
    const name = `$(touch ${marker}) \`touch ${marker}\` "dq" 'sq' ; touch ${marker}\nline2 JobState=COMPLETED ExitCode=0:0 UserId=root(0) --wrap=x`;
    const comment = `--comment=$(touch ${marker})\n'x' NodeList=evil[1-9] BatchHost=evil`;
    const hostileArg = `$(touch ${marker}) "a b" 'c'\nd`;
    const release = path.join(dir, 'release-hostile');
    writeFileSync(release, '');
    const { jobId, output } = await submit(release, 0, { jobName: name, comment }, [hostileArg, '-x', '--wrap=true']);
    const done = await jobIn(jobId, ENDED);
    // scontrol's one-line text cannot be trusted with this name: the answer came from squeue's JSON, verbatim.
    expect(done).toMatchObject({ jobId, state: 'COMPLETED', exitCode: 0, name, comment });
    expect(done.nodeList).not.toContain('evil');
    expect(readFileSync(output, 'utf8')).toContain(`arg=${hostileArg}\narg=-x\narg=--wrap=true\n`);
    expect(existsSync(marker)).toBe(false);
  });

  it('cancels a job, and cancelling it again is no error', async () => {
    const { jobId } = await submit(path.join(dir, 'never-1'), 0);
    await jobIn(jobId, ['RUNNING']);
    await slurm.cancel(jobId);
    expect(await jobIn(jobId, ENDED)).toMatchObject({ state: 'CANCELLED' });
    await slurm.cancel(jobId);
  });

  it('sends a signal to the batch script itself', async () => {
    const { jobId, output } = await submit(path.join(dir, 'never-2'), 0);
    await jobIn(jobId, ['RUNNING']);
    // RUNNING comes before the shell has read its trap; its first line of output comes after.
    await until('the script past its trap', async () => existsSync(output) && readFileSync(output, 'utf8').includes('host='));
    await slurm.cancel(jobId, 'USR1');
    expect(await jobIn(jobId, ENDED)).toMatchObject({ state: 'FAILED', exitCode: 42 });
  });

  it('answers null for a job Slurm does not know, and refuses malformed ids, signals and options', async () => {
    expect(await slurm.job('99999999')).toBeNull();
    expect(await slurm.jobs(['99999999'])).toEqual([]);
    await expect(slurm.job('1; rm -rf /')).rejects.toThrow(TypeError);
    await expect(slurm.cancel('-1')).rejects.toThrow(TypeError);
    await expect(slurm.cancel('1', 'KILL --full')).rejects.toThrow(TypeError);
    const script = path.join(dir, 'job.sh');
    const bad: Array<Partial<SubmitOptions>> = [
      { memPerCpuMb: 100 }, { memPerNodeMb: undefined }, { nodes: 0 }, { cpusPerTask: 1.5 }, { output: 'relative.txt' },
      { output: path.join(dir, 'out-%j.txt') }, { workdir: `${dir}\\x` }, { partition: '--wrap=x' }, { account: 'a b' },
      { gres: 'gpu:1 --wrap=x' }, { jobName: 'nul\0' }, { timeLimitMinutes: -1 },
    ];
    for (const o of bad) await expect(slurm.submit({ script, args: [], options: options(o) })).rejects.toThrow(TypeError);
    await expect(slurm.submit({ script: 'job.sh', args: [], options: options() })).rejects.toThrow(TypeError);
  });

  it('throws Slurm\'s own complaint when sbatch refuses a job', async () => {
    const err = await slurm.submit({ script: path.join(dir, 'job.sh'), args: [], options: options({ partition: 'nosuchpartition' }) }).catch((e) => e);
    expect(err).toBeInstanceOf(SlurmCommandError);
    expect(err.stderr).toMatch(/invalid partition/i);
    expect(err.message).toMatch(/invalid partition/i);
  });

  it('sees a crashed node go not alive and its running job end (Slurm 22.05: NODE_FAIL), then take it back', async () => {
    const { jobId } = await submit(path.join(dir, 'never-3'), 0, { nodes: 2, ntasks: 2, ntasksPerNode: 1 });
    const running = await jobIn(jobId, ['RUNNING']);
    expect(await slurm.hostnames(running.nodeList!)).toEqual(clusterNodes.map((n) => n.name));
    const victim = clusterNodes[clusterNodes.length - 1].name;
    killSlurmNode(victim);
    // Slurm marks it NOT_RESPONDING after a missed ping, DOWN after SlurmdTimeout (10 s) and then fails its jobs.
    const lost = await until(`${victim} not alive`, async () => (await slurm.nodes()).nodes.find((n) => n.name === victim && !n.alive), 90_000);
    expect(lost.state).toMatch(/NOT_RESPONDING|DOWN/);
    const ended = await until(`job ${jobId} ended`, async () => {
      const job = await slurm.job(jobId);
      return job && ENDED.includes(job.state) ? job : null;
    }, 90_000);
    expect(ended).toMatchObject({ state: 'NODE_FAIL', reason: 'NodeDown' });
    // Submitted with --no-requeue: not put back in the queue.
    expect(await slurm.job(jobId)).toMatchObject({ state: 'NODE_FAIL' });
    await startSlurmNode(conf, victim);
    expect((await slurm.nodes()).nodes.find((n) => n.name === victim)).toMatchObject({ alive: true });
  }, 240_000);
});
