/**
 * The Engine API request that creates one kernel's container (POST /containers/create), built from the kernel spec
 * alone so it can be checked without an engine. The container runs the kernel runner as an unprivileged uid with
 * every capability dropped, no-new-privileges, a read-only root file system, /home/work the session's scratch
 * directory, /tmp a tmpfs, the session's folders bound ro/rw, memory/CPU/pids/shm limits, and only the session's
 * private network (its peers by hostname). Nothing else of the host is bound: the runner and web terminal files
 * read-only, the runner's socket directory, and, for an image without Python, the host's Python runtime read-only.
 * On a remote engine (runDir null) the socket directory is a tmpfs inside the container, reached by exec
 * (./exec-channel), and the runner files are a copy under the data directory (./runner-copy).
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { ContainerCreateOptions, DeviceRequest } from 'dockerode';
import type { KernelSpec } from '../agent';
import { kernelEnviron } from '../sandbox/kernel-env';

export const RUNNER_IN_CONTAINER = '/opt/berth/kernel_runner.py';
export const WEB_TERMINAL_IN_CONTAINER = '/opt/berth/web_terminal.py';
export const RUN_DIR_IN_CONTAINER = '/run/berth';
export const SOCKET_IN_CONTAINER = `${RUN_DIR_IN_CONTAINER}/kernel.sock`;
const HOST_RUNTIME = '/opt/berth/host';
const TMP_SIZE = '1g';
const RUN_DIR_SIZE = '16m';
const DEFAULT_SHM = 64 * 2 ** 20;

/** Labels every kernel container carries: what finds it again after a manager restart. */
export const LABEL_KERNEL = 'ai.backend.kernel-id';
export const LABEL_SESSION = 'ai.backend.session-id';
export const LABEL_MANAGED = 'berth.managed';
/** The interpreter of the runner (and of the exec bridge on a remote engine). */
export const LABEL_PYTHON = 'berth.runner-python';

export interface ContainerPlan {
  spec: KernelSpec;
  image: string;
  /** The image's Python (ai.backend.runtime-path); null: the image has none, the host's runtime runs the runner. */
  imagePython: string | null;
  uid: number;
  scratchDir: string;
  /** The host directory of the runner's socket; null: a tmpfs inside the container (a remote engine). */
  runDir: string | null;
  runnerPath: string;
  /** The web terminal's xterm.js files, on the engine's host. */
  xterm: { host: string; inSandbox: string }[];
  network: string;
  /** ai.backend.resource.* for GPUs: the Engine API's device-request driver (nvidia when the operator runs its toolkit). */
  gpuDriver: string;
}

/** The host's Python, for images without one: the interpreter, its standard library and the C libraries, read-only. */
export interface HostRuntime {
  binds: string[];
  argv: string[];
}

let hostRuntimeCache: HostRuntime | null | undefined;
export function hostRuntime(): HostRuntime | null {
  if (hostRuntimeCache !== undefined) return hostRuntimeCache;
  hostRuntimeCache = null;
  if (!existsSync('/usr/bin/python3')) return null;
  const python = realpathSync('/usr/bin/python3');
  const version = path.basename(python);
  const multiarch = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu'].find((d) => existsSync(d));
  const loader = multiarch && ['ld-linux-x86-64.so.2', 'ld-linux-aarch64.so.1'].map((l) => path.join(multiarch, l)).find((l) => existsSync(l));
  if (!multiarch || !loader || !existsSync(`/usr/lib/${version}`)) return null;
  const libs = `${HOST_RUNTIME}/lib/${path.basename(multiarch)}`;
  hostRuntimeCache = {
    binds: [`${python}:${HOST_RUNTIME}/bin/${version}:ro`, `/usr/lib/${version}:${HOST_RUNTIME}/lib/${version}:ro`, `${multiarch}:${libs}:ro`],
    // The loader named explicitly: the image may have no /lib64 (or another libc) of its own.
    argv: [`${libs}/${path.basename(loader)}`, '--library-path', libs, `${HOST_RUNTIME}/bin/${version}`, '-I'],
  };
  return hostRuntimeCache;
}

/** The PATH of a Debian-like container image. */
const CONTAINER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function containerName(kernelId: string): string {
  return `berth-kernel-${kernelId}`;
}

export function sessionNetworkName(sessionId: string): string {
  return `berth-session-${sessionId}`;
}

/** Accelerators as the Engine API's DeviceRequests (`docker run --gpus N`): whole devices. */
export function deviceRequests(gpus: number | undefined, driver: string): DeviceRequest[] {
  if (!gpus || gpus <= 0) return [];
  return [{ Driver: driver, Count: Math.ceil(gpus), Capabilities: [['gpu']], Options: {} }];
}

export function containerOptions(plan: ContainerPlan): ContainerCreateOptions {
  const { spec } = plan;
  const runtime = plan.imagePython ? null : hostRuntime();
  if (!plan.imagePython && !runtime) throw new Error('the image has no Python (ai.backend.runtime-path) and the host has no Python runtime to lend it');
  const interpreter = plan.imagePython ? [plan.imagePython, '-I'] : runtime!.argv;
  const env = kernelEnviron(CONTAINER_PATH, spec.environ);
  const limits = spec.limits;
  const binds = [
    `${plan.scratchDir}:/home/work:rw`,
    ...(plan.runDir ? [`${plan.runDir}:${RUN_DIR_IN_CONTAINER}:rw`] : []),
    `${plan.runnerPath}:${RUNNER_IN_CONTAINER}:ro`,
    `${path.join(path.dirname(plan.runnerPath), 'web_terminal.py')}:${WEB_TERMINAL_IN_CONTAINER}:ro`,
    ...plan.xterm.map((f) => `${f.host}:${f.inSandbox}:ro`),
    ...(runtime?.binds ?? []),
    ...spec.mounts.map((m) => `${m.hostPath}:${m.kernelPath}:${m.readOnly ? 'ro' : 'rw'}`),
  ];
  return {
    name: containerName(spec.kernelId),
    Image: plan.image,
    Hostname: spec.hostname,
    User: `${plan.uid}:${plan.uid}`,
    WorkingDir: '/home/work',
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    Entrypoint: [...interpreter, RUNNER_IN_CONTAINER, SOCKET_IN_CONTAINER, spec.runtime],
    Cmd: [],
    Labels: { [LABEL_KERNEL]: spec.kernelId, [LABEL_SESSION]: spec.sessionId, [LABEL_MANAGED]: '1', [LABEL_PYTHON]: interpreter[0], 'ai.backend.cluster-hostname': spec.hostname },
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
    Tty: false,
    NetworkDisabled: false,
    HostConfig: {
      Binds: binds,
      Tmpfs: {
        '/tmp': `rw,nosuid,nodev,size=${TMP_SIZE}`,
        ...(plan.runDir ? {} : { [RUN_DIR_IN_CONTAINER]: `rw,nosuid,nodev,noexec,size=${RUN_DIR_SIZE},mode=1777` }),
      },
      ReadonlyRootfs: true,
      Privileged: false,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      // tini as pid 1 reaps what the session's processes leave behind.
      Init: true,
      Memory: limits.memoryBytes ? Math.floor(limits.memoryBytes) : 0,
      MemorySwap: limits.memoryBytes ? Math.floor(limits.memoryBytes) : 0,
      NanoCpus: limits.cpus ? Math.floor(limits.cpus * 1e9) : 0,
      PidsLimit: limits.pids ?? 4096,
      ShmSize: limits.shmBytes ?? DEFAULT_SHM,
      NetworkMode: plan.network,
      DeviceRequests: deviceRequests(limits.gpus, plan.gpuDriver),
      RestartPolicy: { Name: 'no' },
      LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '1' } },
    },
    NetworkingConfig: { EndpointsConfig: { [plan.network]: { Aliases: [spec.hostname] } } },
  };
}
