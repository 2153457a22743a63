/**
 * What the manager asks of a machine (or a cluster) that runs kernels. Backend-neutral: every backend lives in its
 * own folder under server/agents/ (local/, slurm/, ...) and implements this interface; this file imports from none.
 */
import type { Duplex } from 'node:stream';
import type { KernelEndpoint } from './channel/endpoint';
import type { RunnerConnection } from './channel/connection';

export type { KernelEndpoint } from './channel/endpoint';
/**
 * What query-mode code runs in: `python` (a persistent interpreter), `shell` (each query a bash script: Berth's own
 * `shell` image), `app` (no interpreter, e.g. an image without Python: terminals, batch commands and apps only).
 */
export type Runtime = 'python' | 'shell' | 'app';

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

export interface KernelLimits {
  memoryBytes?: number;
  cpus?: number;
  pids?: number;
  /** Accelerators (cuda.device), for backends that place them. */
  gpus?: number;
  /** /dev/shm (resource_opts.shmem), for backends that size it (docker). */
  shmBytes?: number;
}

export interface KernelStats {
  memoryBytes: number | null;
  /** The most memory the kernel held at once (usage reports bill this as mem_used). */
  memoryPeakBytes: number | null;
  cpuUsedMs: number | null;
  pids: number | null;
  /** Block I/O, where the backend accounts it; null otherwise. */
  ioReadBytes: number | null;
  ioWriteBytes: number | null;
}

export const NO_STATS: KernelStats = { memoryBytes: null, memoryPeakBytes: null, cpuUsedMs: null, pids: null, ioReadBytes: null, ioWriteBytes: null };

export interface KernelSpec {
  kernelId: string;
  sessionId: string;
  /** The kernel's index in its session (0 = main), and how many kernels the session has. */
  clusterIdx: number;
  clusterSize: number;
  /** single-node: every kernel of the session on one machine. */
  singleNode: boolean;
  runtime: Runtime;
  /** The container image, for backends that run images (docker); null for the host's own runtimes. */
  image?: string | null;
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
  /** Backend options of the session's project and policy (Slurm: account and time limit). */
  placement?: { account?: string | null; timeLimitSeconds?: number | null };
}

export interface KernelInfo {
  kernelId: string;
  /** The agent the kernel runs on (a cluster backend may place it elsewhere than the scheduler's guess). */
  agentId: string;
  /** What finds the kernel again after a manager restart: a pid, a job id, a container id. */
  containerId: string;
  /** How any manager process reaches the kernel's runner. */
  endpoint: KernelEndpoint;
  scratchDir: string;
}

export interface KernelExit {
  kernelId: string;
  exitCode: number | null;
  oomKilled: boolean;
  /** Why, when the backend knows better than an exit code (`node-lost`, `job-cancelled`, `time-limit`). */
  reason?: string;
  /** A failure of the machinery rather than the kernel's own exit: the session ends in ERROR. */
  failed?: boolean;
  message?: string;
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

export interface LaunchHooks {
  /**
   * Called once the backend knows where the kernels run (at once on a single machine; when a cluster's workload
   * manager has started the job), before their sandboxes start: kernel id → agent id.
   */
  placed?(placement: Map<string, string>): Promise<void>;
}

/** Opens a connection to one of an app's ports on a host this machine cannot reach directly; resolves once connected. */
export type AppConnector = (port: number) => Promise<Duplex>;

export interface Agent {
  readonly id: string;
  /** Why limits are or are not enforced here (cgroup v2, v1, the workload manager, none). */
  readonly limitsReport: string;
  /** Starts the kernels of one session that were scheduled onto this backend, together. */
  createKernels(specs: KernelSpec[], hooks?: LaunchHooks): Promise<KernelInfo[]>;
  /** Stops the kernel; its scratch directory goes too unless keepScratch (restart). */
  destroyKernel(kernelId: string, options?: { keepScratch?: boolean }): Promise<void>;
  /** Re-attaches to a kernel that outlived a manager restart; false when it is gone. */
  adoptKernel(kernelId: string, containerId: string, endpoint: KernelEndpoint | null): Promise<boolean>;
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
  /** The address the kernel's apps listen on, as the app proxy reaches it. */
  appHost(kernelId: string): string;
  /** Whether `host` is where one of this backend's live kernels serves apps (a container's address). */
  ownsAppHost?(host: string): boolean;
  /**
   * How to reach apps on `host` when this machine cannot directly (a container on a remote Docker engine: through
   * the engine): a function opening a connection to one of its ports, resolved once connected; null when `host` is
   * not one the backend tunnels to.
   */
  appConnector?(host: string): AppConnector | null;
  scratchDir(kernelId: string): string;
  logs(kernelId: string): Promise<string>;
  stats(kernelId: string): KernelStats;
  /** Called once when a kernel exits on its own (crash, OOM, batch end, its node lost). */
  onKernelExit(listener: (exit: KernelExit) => void): void;
  close(): Promise<void>;
}
