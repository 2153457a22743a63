/**
 * Slurm's command-line tools (scontrol, sbatch, scancel, squeue from PATH) for the slurm backend. Every call is an
 * argv array through execFile, never a shell, with a timeout; a failure throws a SlurmCommandError holding stderr.
 * The commands run with a clean environment (PATH, SLURM_CONF, C locale): the manager's own variables, secrets
 * among them, reach neither Slurm's tools nor, through sbatch's default --export=ALL, the jobs.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { parseJob, parseNodes, parsePartitions, parseSqueueJson, type SlurmJob, type SlurmNode, type SlurmPartition } from './parse';

export class SlurmCommandError extends Error {
  constructor(
    readonly command: string,
    readonly stderr: string,
    readonly exitCode: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'SlurmCommandError';
  }
}

export interface SubmitOptions {
  jobName: string;
  partition?: string;
  nodes: number;
  ntasks: number;
  ntasksPerNode?: number;
  cpusPerTask: number;
  /** Memory per node (--mem); or give memPerCpuMb (--mem-per-cpu), not both. */
  memPerNodeMb?: number;
  memPerCpuMb?: number;
  /** Generic resources per node, e.g. `gpu:2` or `gpu:a100:1,mps:100`. */
  gres?: string;
  timeLimitMinutes?: number;
  account?: string;
  comment: string;
  /** The job's stdout and stderr file (absolute; no `%` patterns). */
  output: string;
  /** The batch script's working directory (absolute). */
  workdir: string;
}

export interface SubmitRequest {
  /** An executable on a file system every node sees (absolute path). */
  script: string;
  args: string[];
  options: SubmitOptions;
}

const JOB_ID = /^\d+$/;
// Partition, account and node list values: Slurm's own names, never an option (no leading '-').
const SLURM_NAME = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
const HOSTLIST = /^[A-Za-z0-9_.][A-Za-z0-9_.,[\]-]*$/;
const GRES = /^[A-Za-z][A-Za-z0-9_.:,()-]*$/;
const SIGNAL = /^(?:[A-Z][A-Z0-9]*|\d+)$/;
const TIMEOUT_MS = 20_000;

export class SlurmCommands {
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly options: { conf: string; timeoutMs?: number }) {
    const clean: Record<string, string> = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', SLURM_CONF: options.conf, LANG: 'C', LC_ALL: 'C' };
    this.env = clean as NodeJS.ProcessEnv; // (Next's typings make NODE_ENV a required key)
  }

  /** Every node (of one partition when given), and the lines that could not be read. */
  async nodes(partition?: string): Promise<{ nodes: SlurmNode[]; errors: string[] }> {
    const result = parseNodes(await this.run('scontrol', ['show', 'node', '-o']));
    return partition ? { ...result, nodes: result.nodes.filter((n) => n.partitions.includes(partition)) } : result;
  }

  /** A job Slurm still knows (running, pending, or ended less than MinJobAge ago); null when it does not. */
  async job(id: string): Promise<SlurmJob | null> {
    if (!JOB_ID.test(id)) throw new TypeError(`not a Slurm job id: ${id}`);
    let text: string;
    try {
      text = await this.run('scontrol', ['show', 'job', '-o', id]);
    } catch (err) {
      if (err instanceof SlurmCommandError && /Invalid job id/i.test(err.stderr)) return null;
      throw err;
    }
    if (!text.trim()) return null;
    const job = parseJob(text);
    if (job?.jobId === id) return job;
    // A name or comment that imitates scontrol's fields: squeue's JSON says the same unambiguously.
    const listed = await this.squeueAll();
    return listed.find((j) => j.jobId === id) ?? null;
  }

  /** The jobs of `ids` that Slurm still knows, in the same order. */
  async jobs(ids: string[]): Promise<SlurmJob[]> {
    const found: SlurmJob[] = [];
    for (const id of ids) {
      const job = await this.job(id);
      if (job) found.push(job);
    }
    return found;
  }

  async partitions(): Promise<SlurmPartition[]> {
    return parsePartitions(await this.run('scontrol', ['show', 'partition', '-o']));
  }

  async defaultPartition(): Promise<string | null> {
    return (await this.partitions()).find((p) => p.isDefault)?.name ?? null;
  }

  /** Expands a hostlist expression (`node[1-3],gpu7`) into host names. */
  async hostnames(nodelist: string): Promise<string[]> {
    if (!HOSTLIST.test(nodelist)) throw new TypeError(`not a Slurm node list: ${nodelist}`);
    return (await this.run('scontrol', ['show', 'hostnames', nodelist])).split('\n').map((h) => h.trim()).filter(Boolean);
  }

  /** Submits a batch job with `sbatch --parsable`; returns its id. */
  async submit(request: SubmitRequest): Promise<string> {
    const out = await this.run('sbatch', [...sbatchArgs(request.options), '--', ...scriptArgv(request)]);
    const m = /^(\d+)(?:;\S*)?\s*$/.exec(out);
    if (!m) throw new SlurmCommandError('sbatch', out, 0, `sbatch printed no job id: ${out.slice(0, 200)}`);
    return m[1];
  }

  /**
   * Cancels a job, or sends it a signal (to the batch script too, with --full). Cancelling a job that already
   * ended is not an error.
   */
  async cancel(jobId: string, signal?: string): Promise<void> {
    if (!JOB_ID.test(jobId)) throw new TypeError(`not a Slurm job id: ${jobId}`);
    if (signal !== undefined && !SIGNAL.test(signal)) throw new TypeError(`not a signal: ${signal}`);
    const args = signal ? [`--signal=${signal}`, '--full', jobId] : [jobId];
    try {
      await this.run('scancel', args);
    } catch (err) {
      if (err instanceof SlurmCommandError && /already completing or completed|Invalid job id/i.test(err.stderr)) return;
      throw err;
    }
  }

  private async squeueAll(): Promise<SlurmJob[]> {
    // 22.05 ignores squeue's filters with --json: every job the controller knows comes back.
    return parseSqueueJson(await this.run('squeue', ['--json', '--states=all'])).jobs;
  }

  private run(command: string, args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(command, args, {
        env: this.env,
        timeout: this.options.timeoutMs ?? TIMEOUT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'utf8',
      }, (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const e = err as NodeJS.ErrnoException & { code?: number | string; killed?: boolean };
        const why = e.killed ? `timed out after ${this.options.timeoutMs ?? TIMEOUT_MS} ms` : typeof e.code === 'number' ? `exit code ${e.code}` : e.message;
        reject(new SlurmCommandError(command, stderr, typeof e.code === 'number' ? e.code : null, `${command} ${args[0] ?? ''} failed (${why}): ${stderr.trim().slice(0, 2000)}`));
      });
    });
  }
}

/**
 * sbatch's options, one argv element each (`--name=value`, so a value that starts with '-' stays a value).
 * Node failure ends the job (--no-requeue): Slurm would otherwise put a batch job back in the queue.
 */
export function sbatchArgs(o: SubmitOptions): string[] {
  const args = ['--parsable', '--no-requeue', '--export=ALL', `--job-name=${text('jobName', o.jobName)}`, `--comment=${text('comment', o.comment)}`];
  args.push(`--nodes=${positive('nodes', o.nodes)}`, `--ntasks=${positive('ntasks', o.ntasks)}`, `--cpus-per-task=${positive('cpusPerTask', o.cpusPerTask)}`);
  if (o.ntasksPerNode !== undefined) args.push(`--ntasks-per-node=${positive('ntasksPerNode', o.ntasksPerNode)}`);
  if ((o.memPerNodeMb === undefined) === (o.memPerCpuMb === undefined)) throw new TypeError('give exactly one of memPerNodeMb and memPerCpuMb');
  if (o.memPerNodeMb !== undefined) args.push(`--mem=${positive('memPerNodeMb', o.memPerNodeMb)}M`);
  if (o.memPerCpuMb !== undefined) args.push(`--mem-per-cpu=${positive('memPerCpuMb', o.memPerCpuMb)}M`);
  if (o.partition !== undefined) args.push(`--partition=${matching('partition', o.partition, SLURM_NAME)}`);
  if (o.account !== undefined) args.push(`--account=${matching('account', o.account, SLURM_NAME)}`);
  if (o.gres !== undefined) args.push(`--gres=${matching('gres', o.gres, GRES)}`);
  if (o.timeLimitMinutes !== undefined) args.push(`--time=${positive('timeLimitMinutes', o.timeLimitMinutes)}`);
  args.push(`--output=${filePath('output', o.output)}`, `--chdir=${filePath('workdir', o.workdir)}`);
  return args;
}

function scriptArgv({ script, args }: SubmitRequest): string[] {
  if (!path.isAbsolute(script)) throw new TypeError(`the job script must be an absolute path: ${script}`);
  return [script, ...args.map((a) => text('argument', a))];
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, not ${value}`);
  return value;
}

function matching(name: string, value: string, pattern: RegExp): string {
  if (!pattern.test(value)) throw new TypeError(`${name} has unexpected characters: ${JSON.stringify(value)}`);
  return value;
}

// Any text goes, except NUL (which an argv element cannot hold).
function text(name: string, value: string): string {
  if (typeof value !== 'string' || value.includes('\0')) throw new TypeError(`${name} must be text without NUL`);
  return value;
}

// sbatch expands %j, %u... in file names and a backslash turns that off: paths with either are refused.
function filePath(name: string, value: string): string {
  if (!path.isAbsolute(value) || /[%\\\0\n\r]/.test(value)) throw new TypeError(`${name} must be an absolute path without %, \\ or newlines: ${value}`);
  return value;
}
