/**
 * The `local` agent backend: every kernel is a bubblewrap sandbox on this machine running the kernel runner,
 * with limits through cgroups. Kernels are started detached and reached over Unix sockets, so they outlive a
 * manager restart and are adopted again on the next start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, cpSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Agent, AppStatus, ExecRequest, KernelExit, KernelInfo, KernelSpec } from '../agent';
import { detectCgroups, KernelCgroup } from './cgroups';
import { askRunner, connectRunner, type RunnerConnection } from './runner-client';
import { sandboxArgv } from './sandbox';
import { mkdirInside, writeFileInside } from './scratch-files';
import { isRunning, killTree } from './process-tree';

export interface LocalAgentOptions {
  id: string;
  /** Kernel scratch directories and logs live under <dataDir>/kernels. */
  dataDir: string;
  /** Where kernel_runner.py is (the project's server/agents/local). */
  runnerPath: string;
  /** The unprivileged uid kernels run as when Berth is root. */
  kernelUid: number;
  startTimeoutMs?: number;
}

interface KernelRecord {
  pid: number;
  child: ChildProcess | null;
  cgroup: KernelCgroup;
  destroying: boolean;
  exited: boolean;
}

const LOG_TAIL_BYTES = 1024 * 1024;
const APP_OUTPUT_TAIL_BYTES = 4096;

export class LocalAgent implements Agent {
  readonly id: string;
  readonly limitsReport: string;
  private readonly kernels = new Map<string, KernelRecord>();
  private readonly exitListeners: ((exit: KernelExit) => void)[] = [];
  private readonly uid: number | null;
  private readonly watch: NodeJS.Timeout;

  constructor(private readonly options: LocalAgentOptions) {
    this.id = options.id;
    this.uid = process.getuid?.() === 0 ? options.kernelUid : null;
    this.limitsReport = detectCgroups().reason;
    // Adopted kernels have no child handle: notice their exit by polling.
    this.watch = setInterval(() => this.pollAdopted(), 2_000);
    this.watch.unref();
  }

  private kernelDir(kernelId: string): string {
    return path.join(this.options.dataDir, 'kernels', kernelId);
  }

  scratchDir(kernelId: string): string {
    return path.join(this.kernelDir(kernelId), 'work');
  }

  /** Short and outside the data directory: Unix socket paths are limited to ~108 bytes. */
  private runDir(kernelId: string): string {
    return path.join(tmpdir(), 'berth-run', kernelId);
  }

  private socketPath(kernelId: string): string {
    return path.join(this.runDir(kernelId), 'kernel.sock');
  }

  private logPath(kernelId: string): string {
    return path.join(this.kernelDir(kernelId), 'kernel.log');
  }

  async createKernel(spec: KernelSpec): Promise<KernelInfo> {
    const scratch = this.scratchDir(spec.kernelId);
    const runDir = this.runDir(spec.kernelId);
    mkdirSync(scratch, { recursive: true });
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true });
    if (spec.snapshotDir && existsSync(spec.snapshotDir)) cpSync(spec.snapshotDir, scratch, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    mkdirInside(scratch, '.berth');
    for (const file of spec.files) writeFileInside(scratch, file.path, file.content, file.mode);
    if (spec.bootstrapScript) writeFileInside(scratch, '.berth/bootstrap.sh', spec.bootstrapScript, 0o755);
    for (const mount of spec.mounts) mkdirInside(scratch, path.posix.relative('/home/work', mount.kernelPath));
    if (this.uid !== null) {
      chownTree(scratch, this.uid);
      chownSync(runDir, this.uid, this.uid);
    }

    const hostsFile = path.join(this.kernelDir(spec.kernelId), 'hosts');
    const hostLines = ['127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback', `127.0.1.1\t${spec.hostname}`];
    for (const [name, address] of Object.entries(spec.hosts)) if (name !== spec.hostname) hostLines.push(`${address}\t${name}`);
    writeFileSync(hostsFile, hostLines.join('\n') + '\n', { mode: 0o644 });
    const etcFiles = [{ hostPath: hostsFile, sandboxPath: '/etc/hosts' }, ...this.accountFiles(spec.kernelId)];

    const cgroup = new KernelCgroup(spec.kernelId);
    const cgroupProcs = cgroup.create(spec.limits);
    const { file, args } = sandboxArgv({
      uid: this.uid,
      scratchDir: scratch,
      runDir,
      runnerPath: this.options.runnerPath,
      runtime: spec.runtime,
      hostname: spec.hostname,
      etcFiles,
      environ: spec.environ,
      mounts: spec.mounts,
      cgroupProcs,
    });
    const log = openSync(this.logPath(spec.kernelId), 'a');
    // fd 3 is a pipe the runner writes "ready" to once it listens: no polling for the socket.
    const child = spawn(file, args, { detached: true, stdio: ['ignore', log, log, 'pipe'] });
    closeSync(log);
    child.unref();
    const record: KernelRecord = { pid: child.pid!, child, cgroup, destroying: false, exited: false };
    this.kernels.set(spec.kernelId, record);
    child.once('exit', (code, signal) => this.handleExit(spec.kernelId, record, code ?? (signal ? 128 + 9 : null)));
    try {
      await this.waitReady(child, record, this.options.startTimeoutMs ?? 60_000);
    } catch (err) {
      await this.destroyKernel(spec.kernelId);
      const tail = readTail(this.logPath(spec.kernelId), 2000);
      throw new Error(`${err instanceof Error ? err.message : String(err)}${tail ? `\n${tail}` : ''}`);
    }
    return { kernelId: spec.kernelId, pid: record.pid, scratchDir: scratch };
  }

  /** The kernel's uid named `work` in /etc/passwd and /etc/group, so shells and tools know who they are. */
  private accountFiles(kernelId: string): { hostPath: string; sandboxPath: string }[] {
    if (this.uid === null) return [];
    const uid = this.uid;
    const files = [
      { name: 'passwd', line: `work:x:${uid}:${uid}:Berth session:/home/work:/bin/bash` },
      { name: 'group', line: `work:x:${uid}:` },
    ];
    return files.map(({ name, line }) => {
      const hostPath = path.join(this.kernelDir(kernelId), name);
      const base = readFileSync(`/etc/${name}`, 'utf8').split('\n').filter((l) => l && !l.startsWith('work:') && !l.includes(`:${uid}:`));
      writeFileSync(hostPath, [...base, line].join('\n') + '\n', { mode: 0o644 });
      return { hostPath, sandboxPath: `/etc/${name}` };
    });
  }

  private waitReady(child: ChildProcess, record: KernelRecord, timeoutMs: number): Promise<void> {
    const pipe = child.stdio[3] as NodeJS.ReadableStream & { destroy(): void; unref?(): void };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error('the kernel did not become ready in time')), timeoutMs);
      const onExit = () => finish(new Error('the kernel exited while starting'));
      pipe.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && finish(null));
      pipe.on('end', () => setTimeout(() => record.exited && onExit(), 50));
      child.once('exit', onExit);
      function finish(err: Error | null) {
        clearTimeout(timer);
        child.off('exit', onExit);
        pipe.removeAllListeners();
        pipe.destroy();
        if (err) reject(err);
        else resolve();
      }
    });
  }

  /** `record` is the sandbox that exited: after a restart a new sandbox may already hold the kernel's id. */
  private handleExit(kernelId: string, record: KernelRecord, exitCode: number | null): void {
    if (record.exited) return;
    record.exited = true;
    if (record.destroying || this.kernels.get(kernelId) !== record) return;
    const oomKilled = record.cgroup.oomKilled();
    // Anything left in the sandbox goes with it.
    killTree(record.pid, record.cgroup.pids());
    record.cgroup.remove();
    for (const listener of this.exitListeners) listener({ kernelId, exitCode, oomKilled });
  }

  private pollAdopted(): void {
    for (const [kernelId, record] of this.kernels) {
      if (!record.child && !record.exited && !isRunning(record.pid)) this.handleExit(kernelId, record, null);
    }
  }

  async destroyKernel(kernelId: string, options: { keepScratch?: boolean } = {}): Promise<void> {
    const record = this.kernels.get(kernelId);
    if (record) {
      record.destroying = true;
      const deadline = Date.now() + 5_000;
      do {
        killTree(record.pid, record.cgroup.pids());
        if (!isRunning(record.pid) && record.cgroup.pids().length === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      } while (Date.now() < deadline);
      record.exited = true;
      record.cgroup.remove();
      this.kernels.delete(kernelId);
    }
    rmSync(this.runDir(kernelId), { recursive: true, force: true });
    if (!options.keepScratch) rmSync(this.scratchDir(kernelId), { recursive: true, force: true });
  }

  async adoptKernel(kernelId: string, pid: number): Promise<boolean> {
    if (!isRunning(pid)) return false;
    try {
      await askRunner(this.socketPath(kernelId), { op: 'ping' }, 'pong', 2_000);
    } catch {
      return false;
    }
    this.kernels.set(kernelId, { pid, child: null, cgroup: new KernelCgroup(kernelId), destroying: false, exited: false });
    return true;
  }

  isAlive(kernelId: string): boolean {
    const record = this.kernels.get(kernelId);
    return Boolean(record && !record.exited && isRunning(record.pid));
  }

  private requireSocket(kernelId: string): string {
    if (!this.isAlive(kernelId)) throw new Error('the kernel is not running');
    return this.socketPath(kernelId);
  }

  execute(kernelId: string, request: ExecRequest): Promise<RunnerConnection> {
    return connectRunner(this.requireSocket(kernelId), { op: 'exec', ...request });
  }

  followBatch(kernelId: string): Promise<RunnerConnection> {
    return connectRunner(this.requireSocket(kernelId), { op: 'batch-wait' });
  }

  pty(kernelId: string, rows: number, cols: number): Promise<RunnerConnection> {
    return connectRunner(this.requireSocket(kernelId), { op: 'pty', rows, cols });
  }

  async complete(kernelId: string, code: string): Promise<string[]> {
    const answer = await askRunner(this.requireSocket(kernelId), { op: 'complete', code }, 'completions');
    return answer.completions as string[];
  }

  async startApp(kernelId: string, app: { name: string; argv: string[]; env: Record<string, string> }): Promise<number> {
    const answer = await askRunner(this.requireSocket(kernelId), { op: 'app-start', ...app }, 'app');
    return answer.pid as number;
  }

  async stopApp(kernelId: string, name: string): Promise<boolean> {
    const answer = await askRunner(this.requireSocket(kernelId), { op: 'app-stop', name }, 'app-stopped');
    return Boolean(answer.stopped);
  }

  async appStatus(kernelId: string, name: string): Promise<AppStatus | null> {
    const answer = await askRunner(this.requireSocket(kernelId), { op: 'apps', tail: APP_OUTPUT_TAIL_BYTES }, 'apps');
    const entry = (answer.apps as Record<string, { alive: boolean; exitCode?: number | null; output?: string }> | undefined)?.[name];
    if (!entry) return null;
    return { alive: entry.alive, exitCode: entry.exitCode ?? null, output: entry.output ?? '' };
  }

  async logs(kernelId: string): Promise<string> {
    return readTail(this.logPath(kernelId), LOG_TAIL_BYTES);
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
    for (const record of this.kernels.values()) record.child?.removeAllListeners('exit');
    this.kernels.clear();
  }
}

function chownTree(root: string, uid: number): void {
  const visit = (p: string) => {
    const stat = lstatSync(p);
    chownSync(p, uid, uid);
    if (stat.isDirectory()) for (const entry of readdirSync(p)) visit(path.join(p, entry));
  };
  visit(root);
}

function readTail(file: string, bytes: number): string {
  if (!existsSync(file)) return '';
  const size = statSync(file).size;
  if (size <= bytes) return readFileSync(file, 'utf8');
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    readSync(fd, buffer, 0, bytes, size - bytes);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
