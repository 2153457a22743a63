/**
 * The `slurm` agent backend: a session is one Slurm job; every node of the partition is an agent (./nodes). The
 * job runs ./job_launcher.py, which starts each kernel in the same bubblewrap sandbox as the local backend and
 * serves its kernel channel over TLS; Slurm decides where. Scratch directories and job files live under the data
 * directory, which must be a shared file system at the same path on every node.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Agent, KernelEndpoint, KernelExit, KernelInfo, KernelSpec, LaunchHooks } from '../agent';
import { NO_STATS } from '../agent';
import { createChannelCredentials } from '../channel/credentials';
import { RunnerAgent } from '../channel/runner-agent';
import { kernelDir, prepareScratch, readTail, writeEtcFiles } from '../sandbox/kernel-dir';
import { sandboxArgv } from '../sandbox/sandbox';
import type { SlurmCommands } from './commands';
import type { SlurmJob } from './parse';
import { jobExit, isActive } from './job-states';
import { nodeAgentId } from './nodes';

export interface SlurmAgentOptions {
  commands: SlurmCommands;
  dataDir: string;
  runnerPath: string;
  launcherPath: string;
  /** The unprivileged uid kernels run as (Berth submits jobs as root; the sandbox drops to this uid). */
  kernelUid: number | null;
  partition: string | null;
  /** `project`: the session's project is the Slurm account; another value: that account; null: none. */
  account: string | null;
  /** Node name → address, as the node mirror last read it. */
  nodeAddress(node: string): string | undefined;
  knownNodes(): string[];
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

interface KernelRecord {
  jobId: string;
  endpoint: KernelEndpoint | null;
  exited: boolean;
  destroying: boolean;
}

const POLL_MS = 1_000;
const READY_POLL_MS = 100;
const LOG_TAIL_BYTES = 1024 * 1024;

export class SlurmAgent extends RunnerAgent implements Agent {
  readonly id = 'slurm';
  readonly limitsReport = 'Slurm enforces CPU and memory limits where its TaskPlugin is task/cgroup';
  private readonly kernels = new Map<string, KernelRecord>();
  private readonly exitListeners: ((exit: KernelExit) => void)[] = [];
  private readonly watch: NodeJS.Timeout;
  private polling = false;

  constructor(private readonly options: SlurmAgentOptions) {
    super();
    this.watch = setInterval(() => void this.pollJobs(), POLL_MS);
    this.watch.unref();
  }

  private jobDir(sessionId: string): string {
    return path.join(this.options.dataDir, 'slurm-jobs', sessionId);
  }

  scratchDir(kernelId: string): string {
    return kernelDir(this.options.dataDir, kernelId).scratch;
  }

  appHost(kernelId: string): string {
    const endpoint = this.kernels.get(kernelId)?.endpoint;
    if (endpoint?.kind !== 'tls') throw new Error('the kernel is not running');
    return endpoint.host;
  }

  protected endpoint(kernelId: string): KernelEndpoint {
    const record = this.kernels.get(kernelId);
    if (!record?.endpoint || record.exited) throw new Error('the kernel is not running');
    return record.endpoint;
  }

  isAlive(kernelId: string): boolean {
    const record = this.kernels.get(kernelId);
    return Boolean(record?.endpoint && !record.exited);
  }

  async createKernels(specs: KernelSpec[], hooks: LaunchHooks = {}): Promise<KernelInfo[]> {
    const sessionId = specs[0].sessionId;
    const dir = this.jobDir(sessionId);
    const jobIdFile = path.join(dir, 'job-id');
    // A restarted manager follows the job its predecessor submitted instead of submitting another.
    const resumed = existsSync(jobIdFile) ? readFileSync(jobIdFile, 'utf8').trim() : null;
    const credentials = new Map<string, { secret: string; fingerprint256: string }>();
    let jobId: string;
    if (resumed && isActive((await this.options.commands.job(resumed))?.state)) {
      jobId = resumed;
      const spec = JSON.parse(readFileSync(path.join(dir, 'job.json'), 'utf8')) as JobSpec;
      for (const k of spec.kernels) credentials.set(k.kernelId, { secret: k.secret, fingerprint256: k.fingerprint256 });
    } else {
      jobId = await this.submit(specs, dir, credentials);
      writeFileSync(jobIdFile, jobId, { mode: 0o600 });
    }
    for (const spec of specs) this.kernels.set(spec.kernelId, { jobId, endpoint: null, exited: false, destroying: false });
    try {
      const ready = await this.waitForKernels(jobId, specs, hooks);
      rmSync(path.join(dir, 'job.json'), { force: true });
      return specs.map((spec) => {
        const { node, port } = ready.get(spec.kernelId)!;
        const host = this.options.nodeAddress(node);
        if (!host) throw new Error(`the Slurm node ${node} is not a registered agent`);
        const endpoint: KernelEndpoint = { kind: 'tls', host, port, ...credentials.get(spec.kernelId)! };
        this.kernels.get(spec.kernelId)!.endpoint = endpoint;
        return { kernelId: spec.kernelId, agentId: nodeAgentId(node), containerId: jobId, endpoint, scratchDir: this.scratchDir(spec.kernelId) };
      });
    } catch (err) {
      await this.options.commands.cancel(jobId).catch(() => undefined);
      for (const spec of specs) this.kernels.delete(spec.kernelId);
      throw err;
    }
  }

  /** Prepares every kernel's scratch directory and the job's spec file, then submits one job for all of them. */
  private async submit(specs: KernelSpec[], dir: string, credentials: Map<string, { secret: string; fingerprint256: string }>): Promise<string> {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const uid = this.options.kernelUid;
    const kernels = [];
    for (const spec of specs) {
      const kdir = kernelDir(this.options.dataDir, spec.kernelId);
      prepareScratch(kdir, spec, uid);
      rmSync(path.join(kdir.root, 'ready.json'), { force: true });
      const etcFiles = writeEtcFiles(kdir, spec, uid);
      const runDir = path.join('/tmp/berth-run', spec.kernelId);
      const { file, args } = sandboxArgv(spec, {
        uid,
        scratchDir: kdir.scratch,
        runDir,
        runnerPath: this.options.runnerPath,
        etcFiles,
        cgroupProcs: [],
      });
      const channel = await createChannelCredentials(spec.kernelId);
      credentials.set(spec.kernelId, { secret: channel.secret, fingerprint256: channel.fingerprint256 });
      kernels.push({
        kernelId: spec.kernelId,
        hostname: spec.hostname,
        hostsFile: etcFiles[0].hostPath,
        readyFile: path.join(kdir.root, 'ready.json'),
        logFile: kdir.log,
        runDir,
        uid,
        argv: [file, ...args],
        cert: channel.certPem,
        key: channel.keyPem,
        secret: channel.secret,
        fingerprint256: channel.fingerprint256,
      });
    }
    const first = specs[0];
    const jobSpec: JobSpec = { launcher: this.options.launcherPath, singleNode: first.singleNode, nodeAddrs: this.nodeAddresses(), kernels };
    const specPath = path.join(dir, 'job.json');
    writeFileSync(specPath, JSON.stringify(jobSpec), { mode: 0o600 });
    const count = specs.length;
    const nodes = first.singleNode ? 1 : count;
    const cpus = Math.max(1, Math.ceil(first.limits.cpus ?? 1));
    const memMb = Math.max(1, Math.ceil((first.limits.memoryBytes ?? 256 * 2 ** 20) / 2 ** 20));
    const account = this.options.account === 'project' ? first.placement?.account ?? undefined : this.options.account ?? undefined;
    const limit = first.placement?.timeLimitSeconds;
    return this.options.commands.submit({
      script: this.options.launcherPath,
      args: [specPath],
      options: {
        jobName: `berth-${first.sessionId}`,
        partition: this.options.partition ?? undefined,
        nodes,
        ntasks: count,
        ntasksPerNode: first.singleNode ? undefined : 1,
        cpusPerTask: cpus,
        memPerNodeMb: memMb * Math.ceil(count / nodes),
        gres: first.limits.gpus ? `gpu:${Math.ceil(first.limits.gpus)}` : undefined,
        timeLimitMinutes: limit ? Math.max(1, Math.ceil(limit / 60)) : undefined,
        account,
        comment: `berth session ${first.sessionId}`,
        output: path.join(dir, 'job.log'),
        workdir: dir,
      },
    });
  }

  private nodeAddresses(): Record<string, string> {
    return Object.fromEntries(this.options.knownNodes().map((node) => [node, this.options.nodeAddress(node)!]));
  }

  /**
   * Waits while the job is queued (the session stays SCHEDULED), reports where it was placed once it starts, and
   * resolves when every kernel's runner answers on its channel. Rejects when the job ends or is cancelled first.
   */
  private async waitForKernels(jobId: string, specs: KernelSpec[], hooks: LaunchHooks): Promise<Map<string, { node: string; port: number }>> {
    const ready = new Map<string, { node: string; port: number }>();
    let placed = false;
    let lastCheck = 0;
    for (;;) {
      if (specs.some((s) => this.kernels.get(s.kernelId)?.destroying)) throw new Error('the session was destroyed while its Slurm job was starting');
      for (const spec of specs) {
        if (ready.has(spec.kernelId)) continue;
        const file = path.join(kernelDir(this.options.dataDir, spec.kernelId).root, 'ready.json');
        if (existsSync(file)) ready.set(spec.kernelId, JSON.parse(readFileSync(file, 'utf8')) as { node: string; port: number });
      }
      if (Date.now() - lastCheck >= POLL_MS || ready.size === specs.length) {
        lastCheck = Date.now();
        const job = await this.options.commands.job(jobId);
        if (!job || !isActive(job.state)) {
          const tail = readTail(path.join(this.jobDir(specs[0].sessionId), 'job.log'), 2000).trim();
          throw new Error(`the Slurm job ${jobId} ended before its kernels started (${describeJob(job)})${tail ? `\n${tail}` : ''}`);
        }
        if (!placed && job.state === 'RUNNING' && job.nodeList) {
          placed = true;
          const nodes = await this.options.commands.hostnames(job.nodeList);
          const placement = new Map(specs.map((s) => [s.kernelId, nodeAgentId(s.singleNode ? nodes[0] : nodes[Math.min(s.clusterIdx, nodes.length - 1)])]));
          await hooks.placed?.(placement);
        }
      }
      if (ready.size === specs.length && placed) break;
      await new Promise((r) => setTimeout(r, READY_POLL_MS));
    }
    return ready;
  }

  async destroyKernel(kernelId: string, options: { keepScratch?: boolean } = {}): Promise<void> {
    const record = this.kernels.get(kernelId);
    if (record) {
      record.destroying = true;
      const siblings = [...this.kernels.entries()].filter(([, r]) => r.jobId === record.jobId);
      if (siblings.every(([, r]) => r.destroying || r.exited)) await this.cancelAndWait(record.jobId);
      record.exited = true;
      this.kernels.delete(kernelId);
    }
    if (!options.keepScratch) rmSync(kernelDir(this.options.dataDir, kernelId).root, { recursive: true, force: true });
  }

  private async cancelAndWait(jobId: string): Promise<void> {
    await this.options.commands.cancel(jobId).catch((err) => this.options.log.warn({ err, jobId }, 'scancel failed'));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const job = await this.options.commands.job(jobId).catch(() => null);
      if (!job || !isActive(job.state)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async adoptKernel(kernelId: string, containerId: string, endpoint: KernelEndpoint | null): Promise<boolean> {
    if (endpoint?.kind !== 'tls') return false;
    const job = await this.options.commands.job(containerId).catch(() => null);
    if (!job || job.state !== 'RUNNING' || !(await RunnerAgent.answers(endpoint))) return false;
    this.kernels.set(kernelId, { jobId: containerId, endpoint, exited: false, destroying: false });
    return true;
  }

  /** Notices jobs that ended on their own (the kernel exited, a node was lost, someone ran scancel). */
  private async pollJobs(): Promise<void> {
    if (this.polling) return;
    const running = new Map<string, string[]>();
    for (const [kernelId, record] of this.kernels) {
      if (record.endpoint && !record.exited && !record.destroying) running.set(record.jobId, [...(running.get(record.jobId) ?? []), kernelId]);
    }
    if (!running.size) return;
    this.polling = true;
    try {
      const jobs = await this.options.commands.jobs([...running.keys()]);
      for (const [jobId, kernelIds] of running) {
        const job = jobs.find((j) => j.jobId === jobId) ?? null;
        if (job && isActive(job.state)) continue;
        const exit = jobExit(job);
        for (const kernelId of kernelIds) {
          const record = this.kernels.get(kernelId);
          if (!record || record.exited || record.destroying) continue;
          record.exited = true;
          for (const listener of this.exitListeners) listener({ kernelId, ...exit });
        }
      }
    } catch (err) {
      this.options.log.warn({ err }, 'reading Slurm jobs failed');
    } finally {
      this.polling = false;
    }
  }

  async logs(kernelId: string): Promise<string> {
    return readTail(kernelDir(this.options.dataDir, kernelId).log, LOG_TAIL_BYTES);
  }

  /** Slurm accounts a job's usage only with slurmdbd and a jobacct_gather plugin: no live figures here. */
  stats() {
    return NO_STATS;
  }

  onKernelExit(listener: (exit: KernelExit) => void): void {
    this.exitListeners.push(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.watch);
    // Jobs keep running: the next manager adopts them.
    this.kernels.clear();
  }
}

interface JobSpec {
  launcher: string;
  singleNode: boolean;
  nodeAddrs: Record<string, string>;
  kernels: { kernelId: string; secret: string; fingerprint256: string; [key: string]: unknown }[];
}

function describeJob(job: SlurmJob | null): string {
  if (!job) return 'no longer known to Slurm';
  return [job.state, job.reason && job.reason !== 'None' ? job.reason : null, job.exitCode !== null ? `exit code ${job.exitCode}` : null].filter(Boolean).join(', ');
}

export type { JobSpec };
