/**
 * The `docker` agent backend: one agent per Docker engine, every kernel a container (./container-spec) running the
 * same kernel runner as the sandboxes, reached over a Unix socket in a host directory bound into the container
 * (a unix:// engine, on this machine), or over an exec bridging to the socket inside the container (a tcp:// engine,
 * ./exec-channel; its host mounts the data directory at the same path).
 * A session's kernels share a private internal network named after the session, on which they resolve each other
 * by hostname and their apps listen (appHost = the container's address there). Containers outlive the manager and
 * are found again by their labels; one that dies or is removed from outside ends its session with the reason.
 */
import { chownSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type Docker from 'dockerode';
import type { Agent, AppConnector, KernelEndpoint, KernelExit, KernelInfo, KernelSpec, KernelStats, LaunchHooks } from '../agent';
import { NO_STATS } from '../agent';
import { RunnerAgent } from '../channel/runner-agent';
import { kernelDir, kernelRunDir, prepareScratch } from '../sandbox/kernel-dir';
import { containerName, containerOptions, LABEL_KERNEL, LABEL_MANAGED, LABEL_PYTHON, LABEL_SESSION, SOCKET_IN_CONTAINER, sessionNetworkName } from './container-spec';
import { copyRunnerFiles, type RunnerFiles } from './runner-copy';
import { xtermFiles } from '../sandbox/xterm';
import type { DockerEngine } from './engine';
import { demuxLogs, statsFrom } from './engine-data';
import { commitImage } from './commit-image';
import { closeReadyBridges, openBridge } from './exec-channel';

export interface DockerAgentOptions {
  engine: DockerEngine;
  dataDir: string;
  runnerPath: string;
  kernelUid: number;
  /** The device-request driver for cuda.device slots (`nvidia` with NVIDIA's container toolkit). */
  gpuDriver?: string;
  startTimeoutMs?: number;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

interface KernelRecord {
  containerId: string;
  /** Where its runner answers: the socket on this machine, or the exec bridge of a remote engine. */
  endpoint: KernelEndpoint;
  sessionId: string;
  /** The container's address on its session network (where its apps listen). */
  address: string | null;
  exited: boolean;
  destroying: boolean;
  stats: KernelStats;
  /**
   * An exit seen, reported once the engine has answered twice more: a stopping engine stops its containers first,
   * and then the session ends for the engine's sake (agent-termination), not the kernel's.
   */
  pendingExit?: { exit: Omit<KernelExit, 'kernelId'>; polls: number };
}

const POLL_MS = 1_000;
const STATS_EVERY = 5;
const CONFIRM_POLLS = 2;
const LOG_TAIL_LINES = 5_000;

export class DockerAgent extends RunnerAgent implements Agent {
  readonly id: string;
  readonly limitsReport = 'the Docker engine enforces memory, CPU, pids and shared-memory limits (its cgroups)';
  readonly docker: Docker;
  private readonly kernels = new Map<string, KernelRecord>();
  private readonly exitListeners: ((exit: KernelExit) => void)[] = [];
  private readonly watch: NodeJS.Timeout;
  private polling = false;
  private polls = 0;
  private runnerFiles: RunnerFiles | null = null;

  constructor(private readonly options: DockerAgentOptions) {
    super();
    this.id = options.engine.agentId;
    this.docker = options.engine.docker;
    this.watch = setInterval(() => void this.poll(), POLL_MS);
    this.watch.unref();
  }

  scratchDir(kernelId: string): string {
    return kernelDir(this.options.dataDir, kernelId).scratch;
  }

  /** The kernel's runner: its socket in a host directory (a local engine), or inside the container (a remote one). */
  private runnerEndpoint(kernelId: string, containerId: string, python: string): KernelEndpoint {
    if (this.options.engine.local) return { kind: 'unix', path: path.join(kernelRunDir(kernelId), 'kernel.sock') };
    return { kind: 'docker-exec', engine: this.options.engine.url, container: containerId, socket: SOCKET_IN_CONTAINER, user: `${this.uid()}:${this.uid()}`, python };
  }

  /** The runner files as the engine's host sees them: this install's own, or a copy under the data directory. */
  private filesForEngine(): RunnerFiles {
    if (this.options.engine.local) return { runnerPath: this.options.runnerPath, xterm: xtermFiles() };
    this.runnerFiles ??= copyRunnerFiles(this.options.dataDir, this.options.runnerPath);
    return this.runnerFiles;
  }

  /** As root Berth hands the scratch directory to the kernel's uid; otherwise the container runs as Berth's own. */
  private uid(): number {
    return process.getuid?.() === 0 ? this.options.kernelUid : (process.getuid?.() ?? this.options.kernelUid);
  }

  appHost(kernelId: string): string {
    const address = this.kernels.get(kernelId)?.address;
    if (!address) throw new Error('the kernel is not running');
    return address;
  }

  ownsAppHost(host: string): boolean {
    for (const record of this.kernels.values()) if (record.address === host && !record.exited) return true;
    return false;
  }

  /** On a remote engine the session network is out of reach: an app is reached by exec in its own container. */
  appConnector(host: string): AppConnector | null {
    if (this.options.engine.local) return null;
    for (const record of this.kernels.values()) {
      const endpoint = record.endpoint;
      if (record.address !== host || record.exited || endpoint.kind !== 'docker-exec') continue;
      return (port) => openBridge(this.docker, endpoint, [host, String(port)]);
    }
    return null;
  }

  protected endpoint(kernelId: string): KernelEndpoint {
    const record = this.kernels.get(kernelId);
    if (!record || record.exited) throw new Error('the kernel is not running');
    return record.endpoint;
  }

  isAlive(kernelId: string): boolean {
    const record = this.kernels.get(kernelId);
    return Boolean(record && !record.exited);
  }

  async createKernels(specs: KernelSpec[], hooks: LaunchHooks = {}): Promise<KernelInfo[]> {
    await hooks.placed?.(new Map(specs.map((s) => [s.kernelId, this.id])));
    const network = await this.ensureNetwork(specs[0].sessionId);
    const results = await Promise.allSettled(specs.map((spec) => this.createKernel(spec, network)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      for (const spec of specs) await this.destroyKernel(spec.kernelId).catch(() => undefined);
      throw failed.reason;
    }
    return results.map((r) => (r as PromiseFulfilledResult<KernelInfo>).value);
  }

  /** The session's own network: internal (no route out), so its kernels reach each other and nothing else. */
  private async ensureNetwork(sessionId: string): Promise<string> {
    const name = sessionNetworkName(sessionId);
    try {
      await this.docker.getNetwork(name).inspect();
    } catch {
      await this.docker.createNetwork({ Name: name, Driver: 'bridge', Internal: true, CheckDuplicate: true, Labels: { [LABEL_SESSION]: sessionId, [LABEL_MANAGED]: '1' } }).catch(async (err) => {
        // Another kernel of the session made it first.
        await this.docker.getNetwork(name).inspect().catch(() => Promise.reject(err));
      });
    }
    return name;
  }

  private async createKernel(spec: KernelSpec, network: string): Promise<KernelInfo> {
    if (!spec.image) throw new Error(`the docker backend runs container images; the ${spec.runtime} image of this session is a host image (pick an image from the engine)`);
    let imageInfo;
    try {
      imageInfo = await this.docker.getImage(spec.image).inspect();
    } catch {
      throw new Error(`the image ${spec.image} is not on the Docker engine ${this.options.engine.url} (import, pull or preload it first)`);
    }
    const labels = (imageInfo.Config?.Labels ?? {}) as Record<string, string>;
    const runtimePath = labels['ai.backend.runtime-path'];
    const imagePython = runtimePath?.startsWith('/') ? runtimePath : null;
    const local = this.options.engine.local;
    if (!local && !imagePython) {
      throw new Error(`the image ${spec.image} has no Python (ai.backend.runtime-path), which a kernel on the remote engine ${this.options.engine.url} needs: only a local engine can lend the host's Python runtime`);
    }
    const uid = this.uid();
    const dir = kernelDir(this.options.dataDir, spec.kernelId);
    const runDir = local ? kernelRunDir(spec.kernelId) : null;
    const files = this.filesForEngine();
    prepareScratch(dir, spec, uid);
    if (runDir) {
      rmSync(runDir, { recursive: true, force: true });
      mkdirSync(runDir, { recursive: true, mode: 0o700 });
      chownSync(runDir, uid, uid);
    }
    const name = containerName(spec.kernelId);
    await this.docker.getContainer(name).remove({ force: true }).catch(() => undefined);
    const options = containerOptions({
      spec,
      image: spec.image,
      imagePython,
      uid,
      scratchDir: dir.scratch,
      runDir,
      runnerPath: files.runnerPath,
      xterm: files.xterm,
      network,
      gpuDriver: this.options.gpuDriver ?? 'nvidia',
    });
    const container = await this.docker.createContainer(options);
    const endpoint = this.runnerEndpoint(spec.kernelId, container.id, options.Labels![LABEL_PYTHON]);
    const record: KernelRecord = { containerId: container.id, endpoint, sessionId: spec.sessionId, address: null, exited: false, destroying: false, stats: NO_STATS };
    this.kernels.set(spec.kernelId, record);
    await container.start();
    await this.waitReady(spec.kernelId, endpoint, container, this.options.startTimeoutMs ?? 60_000);
    const info = await container.inspect();
    record.address = info.NetworkSettings.Networks[network]?.IPAddress || null;
    return { kernelId: spec.kernelId, agentId: this.id, containerId: container.id, endpoint, scratchDir: dir.scratch };
  }

  /** Until the runner answers on its socket; a container that stops first fails the start with its output. */
  private async waitReady(kernelId: string, endpoint: KernelEndpoint, container: Docker.Container, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.kernels.get(kernelId)?.destroying) throw new Error('the session was destroyed while its container was starting');
      if (await RunnerAgent.answers(endpoint, 1_000)) return;
      const state = (await container.inspect()).State;
      if (!state.Running) {
        const output = demuxLogs((await container.logs({ stdout: true, stderr: true, tail: 50 })) as unknown as Buffer).trim();
        throw new Error(`the container exited while starting (code ${state.ExitCode}${state.Error ? `, ${state.Error}` : ''})${output ? `\n${output}` : ''}`);
      }
      if (Date.now() > deadline) throw new Error('the kernel did not become ready in time');
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async destroyKernel(kernelId: string, options: { keepScratch?: boolean } = {}): Promise<void> {
    const record = this.kernels.get(kernelId);
    if (record) record.destroying = true;
    await this.docker
      .getContainer(record?.containerId ?? containerName(kernelId))
      .remove({ force: true })
      .catch((err: { statusCode?: number }) => {
        if (err.statusCode !== 404) this.options.log.warn({ err, kernelId }, 'removing a kernel container failed');
      });
    if (record) {
      record.exited = true;
      this.kernels.delete(kernelId);
      const siblings = [...this.kernels.values()].some((r) => r.sessionId === record.sessionId);
      if (!siblings) await this.docker.getNetwork(sessionNetworkName(record.sessionId)).remove().catch(() => undefined);
    }
    rmSync(kernelRunDir(kernelId), { recursive: true, force: true });
    if (!options.keepScratch) rmSync(this.scratchDir(kernelId), { recursive: true, force: true });
  }

  /** Finds the kernel's container by its label (its id may have changed hands), running and answering. */
  async adoptKernel(kernelId: string): Promise<boolean> {
    const found = await this.docker.listContainers({ all: true, filters: { label: [`${LABEL_KERNEL}=${kernelId}`] } }).catch(() => []);
    const container = found.find((c) => c.State === 'running');
    if (!container) return false;
    const endpoint = this.runnerEndpoint(kernelId, container.Id, container.Labels[LABEL_PYTHON] ?? '/usr/bin/python3');
    if (!(await RunnerAgent.answers(endpoint))) return false;
    const sessionId = container.Labels[LABEL_SESSION] ?? '';
    const address = container.NetworkSettings?.Networks?.[sessionNetworkName(sessionId)]?.IPAddress || null;
    this.kernels.set(kernelId, { containerId: container.Id, endpoint, sessionId, address, exited: false, destroying: false, stats: NO_STATS });
    return true;
  }

  /** Notices containers that exited or were removed, and refreshes the kernels' figures now and then. */
  private async poll(): Promise<void> {
    if (this.polling || !this.kernels.size) return;
    this.polling = true;
    try {
      let listed: Docker.ContainerInfo[];
      try {
        listed = await this.options.engine.probe.listContainers({ all: true, filters: { label: [`${LABEL_MANAGED}=1`] } });
      } catch {
        await this.engineGone();
        return;
      }
      const byKernel = new Map(listed.map((c) => [c.Labels[LABEL_KERNEL], c]));
      for (const [kernelId, record] of this.kernels) {
        if (record.exited || record.destroying || !record.address) continue;
        if (record.pendingExit) {
          if (++record.pendingExit.polls >= CONFIRM_POLLS) this.exit(kernelId, record, record.pendingExit.exit);
          continue;
        }
        const container = byKernel.get(kernelId);
        if (!container) {
          this.exit(kernelId, record, { exitCode: null, oomKilled: false, reason: 'container-not-found', failed: true, message: 'The kernel\'s container was removed outside Berth.' });
        } else if (container.State !== 'running' && container.State !== 'restarting') {
          const state = await this.options.engine.probe.getContainer(container.Id).inspect().then((i) => i.State).catch(() => null);
          record.pendingExit = { exit: { exitCode: state?.ExitCode ?? null, oomKilled: Boolean(state?.OOMKilled) }, polls: 0 };
        }
      }
      if (++this.polls % STATS_EVERY === 1) await this.refreshStats();
    } finally {
      this.polling = false;
    }
  }

  /** The engine does not answer: kernels whose runners still answer keep going; the others are lost with it. */
  private async engineGone(): Promise<void> {
    for (const [kernelId, record] of this.kernels) {
      if (record.exited || record.destroying || !record.address) continue;
      if (!record.pendingExit && (await RunnerAgent.answers(record.endpoint, 1_000))) continue;
      this.exit(kernelId, record, { exitCode: null, oomKilled: false, reason: 'agent-termination', failed: true, message: `The Docker engine ${this.options.engine.url} running the kernel is gone.` });
    }
  }

  private exit(kernelId: string, record: KernelRecord, exit: Omit<KernelExit, 'kernelId'>): void {
    record.exited = true;
    for (const listener of this.exitListeners) listener({ kernelId, ...exit });
  }

  private async refreshStats(): Promise<void> {
    await Promise.all(
      [...this.kernels.values()]
        .filter((r) => !r.exited)
        .map(async (record) => {
          const raw = await this.options.engine.probe.getContainer(record.containerId).stats({ stream: false, 'one-shot': true } as { stream: false }).catch(() => null);
          if (raw) record.stats = statsFrom(raw);
        }),
    );
  }

  async logs(kernelId: string): Promise<string> {
    const record = this.kernels.get(kernelId);
    const raw = await this.docker
      .getContainer(record?.containerId ?? containerName(kernelId))
      .logs({ stdout: true, stderr: true, tail: LOG_TAIL_LINES })
      .catch(() => null);
    return raw ? demuxLogs(raw as unknown as Buffer) : '';
  }

  stats(kernelId: string): KernelStats {
    return this.kernels.get(kernelId)?.stats ?? NO_STATS;
  }

  /**
   * `docker commit` as `reference`, with `labels` added to the image's own. The kernel's root file system is
   * read-only, so what a session changed lives in /home/work: the image is made (./commit-image) from the session's
   * image with `homeDir` as its /home/work, and carries the files wherever it goes.
   */
  async commitKernel(kernelId: string, reference: string, labels: Record<string, string>, homeDir: string | null): Promise<void> {
    const record = this.kernels.get(kernelId);
    if (!record || record.exited) throw new Error('the kernel is not running');
    const base = await this.docker.getContainer(record.containerId).inspect();
    await commitImage(this.docker, base.Image, reference, labels, homeDir);
  }

  onKernelExit(listener: (exit: KernelExit) => void): void {
    this.exitListeners.push(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.watch);
    if (!this.options.engine.local) await closeReadyBridges(this.options.engine.url);
    // Containers keep running: the next manager adopts them.
    this.kernels.clear();
  }
}

