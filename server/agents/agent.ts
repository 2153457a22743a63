/**
 * What the manager asks of a machine that runs kernels. `local` (bubblewrap sandboxes on this machine) is the
 * first backend; docker and kubernetes backends implement the same interface.
 */
import type { RunnerConnection } from './local/runner-client';
import type { KernelLimits, CgroupStats } from './local/cgroups';

export type Runtime = 'python' | 'shell';

export interface KernelMount {
  hostPath: string;
  /** Absolute path inside the kernel, e.g. /home/work/data. */
  kernelPath: string;
  readOnly: boolean;
}

export interface KernelFile {
  /** Relative to /home/work. */
  path: string;
  content: string;
  mode: number;
}

export interface KernelSpec {
  kernelId: string;
  sessionId: string;
  runtime: Runtime;
  hostname: string;
  /** Hostnames the kernel resolves (its cluster peers), written to its /etc/hosts. */
  hosts: Record<string, string>;
  environ: Record<string, string>;
  limits: KernelLimits;
  mounts: KernelMount[];
  files: KernelFile[];
  bootstrapScript?: string;
  /** A committed image's files, copied into the new scratch directory. */
  snapshotDir?: string | null;
}

export interface KernelInfo {
  kernelId: string;
  /** The sandbox's launcher process id on the agent's host. */
  pid: number;
  scratchDir: string;
}

export interface KernelExit {
  kernelId: string;
  exitCode: number | null;
  oomKilled: boolean;
}

export interface ExecRequest {
  mode: 'query' | 'batch';
  code: string;
  options?: Record<string, unknown>;
}

export interface AppStatus {
  alive: boolean;
  exitCode: number | null;
  /** The last lines the app wrote (stdout and stderr). */
  output: string;
}

export interface Agent {
  readonly id: string;
  /** Why limits are or are not enforced here (cgroup v2, v1 or none). */
  readonly limitsReport: string;
  createKernel(spec: KernelSpec): Promise<KernelInfo>;
  /** Stops the sandbox; its scratch directory goes too unless keepScratch (restart). */
  destroyKernel(kernelId: string, options?: { keepScratch?: boolean }): Promise<void>;
  /** Re-attaches to a kernel that outlived a manager restart; false when it is gone. */
  adoptKernel(kernelId: string, pid: number): Promise<boolean>;
  isAlive(kernelId: string): boolean;
  /** Opens one run; the connection carries the runner's events (stdout, stderr, waiting-input, status, finished). */
  execute(kernelId: string, request: ExecRequest): Promise<RunnerConnection>;
  /** Follows the batch command started with `options.detach` (after a manager restart): its `finished` event. */
  followBatch(kernelId: string): Promise<RunnerConnection>;
  pty(kernelId: string, rows: number, cols: number): Promise<RunnerConnection>;
  complete(kernelId: string, code: string): Promise<string[]>;
  startApp(kernelId: string, app: { name: string; argv: string[]; env: Record<string, string> }): Promise<number>;
  stopApp(kernelId: string, name: string): Promise<boolean>;
  /** Whether the app runs, its exit code once it has exited, and the tail of its output; null when never started. */
  appStatus(kernelId: string, name: string): Promise<AppStatus | null>;
  scratchDir(kernelId: string): string;
  logs(kernelId: string): Promise<string>;
  stats(kernelId: string): CgroupStats;
  /** Called once when a kernel's sandbox exits on its own (crash, OOM, batch end). */
  onKernelExit(listener: (exit: KernelExit) => void): void;
  close(): Promise<void>;
}
