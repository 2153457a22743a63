/**
 * The `local` agent backend: every kernel is a bubblewrap sandbox on this machine running the kernel runner,
 * with limits through cgroups. Kernels are started detached and reached over Unix sockets (the fastest channel on
 * one machine), so they outlive a manager restart and are adopted again on the next start.
 */
import { chownSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Agent, KernelEndpoint, KernelExit, KernelInfo, KernelSpec, LaunchHooks } from '../agent';
import { RunnerAgent } from '../channel/runner-agent';
import { kernelDir, kernelRunDir, prepareScratchForStart, readTail, writeEtcFiles, writeKernelFiles } from '../sandbox/kernel-dir';
import { sandboxArgv } from '../sandbox/sandbox';
import { RunnerBytecode } from '../sandbox/runner-bytecode';
import { detectCgroups, KernelCgroup } from './cgroups';
import { isRunning, killAll, killTree } from './process-tree';
import { Spawner } from './spawner';
import { withTimeout } from '../../util/timeout';

export interface LocalAgentOptions {
  id: string;
  /** Kernel scratch directories and logs live under <dataDir>/kernels. */
  dataDir: string;
  /** Where kernel_runner.py is (the project's server/agents/sandbox). */
  runnerPath: string;
  /** The unprivileged uid kernels run as when Berth is root. */
  kernelUid: number;
  startTimeoutMs?: number;
  /** Told when compiling the runner fails (sandboxes then run its source). */
  onWarning?: (message: string, err: Error) => void;
}

interface KernelRecord {
  pid: number;
  /** The spawner reports this sandbox's exit; otherwise (adopted after a restart) its pid is polled. */
  reported: boolean;
  cgroup: KernelCgroup;
  destroying: boolean;
  exited: boolean;
}

const LOG_TAIL_BYTES = 1024 * 1024;

/**
 * Kills every process of a sandbox. Once its first process is in its cgroups, they hold all of them (a child
 * starts in its parent's groups, and nothing in a sandbox can move itself out); otherwise (no cgroups, or the
 * first process gone) its descendants are found by walking /proc, which reads every process's stat (~5 ms here).
 */
function killSandbox(record: KernelRecord): void {
  const members = record.cgroup.pids();
  if (members.includes(record.pid)) killAll(members);
  else killTree(record.pid, members);
}

export class LocalAgent extends RunnerAgent implements Agent {
  readonly id: string;
  readonly limitsReport: string;
  private readonly kernels = new Map<string, KernelRecord>();
  private readonly exitListeners: ((exit: KernelExit) => void)[] = [];
  private readonly uid: number | null;
  private readonly watch: NodeJS.Timeout;
  private readonly spawner: Spawner;
  private readonly runnerBytecode: RunnerBytecode;

  constructor(private readonly options: LocalAgentOptions) {
    super();
    this.id = options.id;
    this.uid = process.getuid?.() === 0 ? options.kernelUid : null;
    this.limitsReport = detectCgroups().reason;
    this.spawner = new Spawner(path.join(path.dirname(options.runnerPath), '../local/spawner.py'));
    this.runnerBytecode = new RunnerBytecode(options.runnerPath, path.join(options.dataDir, 'runner'), (err) =>
      options.onWarning?.('compiling the kernel runner failed; sandboxes run its source', err),
    );
    // Adopted kernels have no child handle: notice their exit by polling.
    this.watch = setInterval(() => this.pollAdopted(), 2_000);
    this.watch.unref();
  }

  scratchDir(kernelId: string): string {
    return kernelDir(this.options.dataDir, kernelId).scratch;
  }

  private socketPath(kernelId: string): string {
    return path.join(kernelRunDir(kernelId), 'kernel.sock');
  }

  appHost(): string {
    return '127.0.0.1';
  }

  async createKernels(specs: KernelSpec[], hooks: LaunchHooks = {}): Promise<KernelInfo[]> {
    // The sandboxes start while the placement is recorded: a launch waits for the slower of the two, not both.
    const started = Promise.all(specs.map((spec) => this.createKernel(spec)));
    started.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled meanwhile
    try {
      await hooks.placed?.(new Map(specs.map((s) => [s.kernelId, this.id])));
    } catch (err) {
      await started.catch(() => undefined);
      await Promise.all(specs.map((spec) => this.destroyKernel(spec.kernelId).catch(() => undefined)));
      throw err;
    }
    return started;
  }

  private async createKernel(spec: KernelSpec): Promise<KernelInfo> {
    const dir = kernelDir(this.options.dataDir, spec.kernelId);
    const runDir = kernelRunDir(spec.kernelId);
    // The runner reads none of the kernel's files before it says ready, so they are written while it starts; a
    // bootstrap script, which runs before that and may read them, finds them there.
    const filesWhileStarting = !spec.bootstrapScript;
    prepareScratchForStart(dir, spec, this.uid);
    if (!filesWhileStarting) writeKernelFiles(dir, spec.files, this.uid);
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true });
    if (this.uid !== null) chownSync(runDir, this.uid, this.uid);
    const etcFiles = writeEtcFiles(dir, spec, this.uid);

    const cgroup = new KernelCgroup(spec.kernelId);
    const cgroupProcs = cgroup.create(spec.limits);
    const { file, args } = sandboxArgv(spec, {
      uid: this.uid,
      scratchDir: dir.scratch,
      runDir,
      runnerPath: this.options.runnerPath,
      runnerBytecode: this.runnerBytecode.path(),
      etcFiles,
      cgroupProcs,
    });
    const sandbox = await this.spawner.start([file, ...args], dir.log);
    const record: KernelRecord = { pid: sandbox.pid, reported: true, cgroup, destroying: false, exited: false };
    this.kernels.set(spec.kernelId, record);
    sandbox.onExit(({ code, lost }) => {
      if (lost) record.reported = false; // polled from now on
      else this.handleExit(spec.kernelId, record, code);
    });
    try {
      if (filesWhileStarting) writeKernelFiles(dir, spec.files, this.uid);
      await withTimeout(sandbox.ready, this.options.startTimeoutMs ?? 60_000, 'the kernel did not become ready in time');
    } catch (err) {
      await this.destroyKernel(spec.kernelId);
      const tail = readTail(dir.log, 2000);
      throw new Error(`${err instanceof Error ? err.message : String(err)}${tail ? `\n${tail}` : ''}`);
    }
    return { kernelId: spec.kernelId, agentId: this.id, containerId: String(record.pid), endpoint: { kind: 'unix', path: this.socketPath(spec.kernelId) }, scratchDir: dir.scratch };
  }

  /** `record` is the sandbox that exited: after a restart a new sandbox may already hold the kernel's id. */
  private handleExit(kernelId: string, record: KernelRecord, exitCode: number | null): void {
    if (record.exited) return;
    record.exited = true;
    if (record.destroying || this.kernels.get(kernelId) !== record) return;
    const oomKilled = record.cgroup.oomKilled();
    // Anything left in the sandbox goes with it.
    killSandbox(record);
    record.cgroup.remove();
    for (const listener of this.exitListeners) listener({ kernelId, exitCode, oomKilled });
  }

  private pollAdopted(): void {
    for (const [kernelId, record] of this.kernels) {
      if (!record.reported && !record.exited && !isRunning(record.pid)) this.handleExit(kernelId, record, null);
    }
  }

  async destroyKernel(kernelId: string, options: { keepScratch?: boolean } = {}): Promise<void> {
    const record = this.kernels.get(kernelId);
    if (record) {
      record.destroying = true;
      const deadline = Date.now() + 5_000;
      do {
        killSandbox(record);
        if (!isRunning(record.pid) && record.cgroup.pids().length === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      } while (Date.now() < deadline);
      record.exited = true;
      this.kernels.delete(kernelId);
    }
    // Without a record, its sandbox ended while no manager watched it (before a restart): its groups are still there.
    (record?.cgroup ?? new KernelCgroup(kernelId)).remove();
    rmSync(kernelRunDir(kernelId), { recursive: true, force: true });
    if (!options.keepScratch) rmSync(this.scratchDir(kernelId), { recursive: true, force: true });
  }

  async adoptKernel(kernelId: string, containerId: string): Promise<boolean> {
    const pid = Number(containerId);
    if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid)) return false;
    if (!(await RunnerAgent.answers({ kind: 'unix', path: this.socketPath(kernelId) }))) return false;
    this.kernels.set(kernelId, { pid, reported: false, cgroup: new KernelCgroup(kernelId), destroying: false, exited: false });
    return true;
  }

  isAlive(kernelId: string): boolean {
    const record = this.kernels.get(kernelId);
    return Boolean(record && !record.exited && isRunning(record.pid));
  }

  protected endpoint(kernelId: string): KernelEndpoint {
    if (!this.isAlive(kernelId)) throw new Error('the kernel is not running');
    return { kind: 'unix', path: this.socketPath(kernelId) };
  }

  async logs(kernelId: string): Promise<string> {
    return readTail(kernelDir(this.options.dataDir, kernelId).log, LOG_TAIL_BYTES);
  }

  stats(kernelId: string) {
    return new KernelCgroup(kernelId).stats();
  }

  onKernelExit(listener: (exit: KernelExit) => void): void {
    this.exitListeners.push(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.watch);
    // Kernels keep running: the next manager adopts them.
    this.spawner.close();
    this.kernels.clear();
  }
}
