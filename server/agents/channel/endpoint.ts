/**
 * Where a kernel runner listens, as stored on the kernel's row so that any manager process can reach it:
 * a Unix socket on this machine, a TLS port on another node, pinned to the kernel's own certificate and
 * opened with the kernel's secret, or a Unix socket inside a container on a remote Docker engine, reached by an exec
 * through the Engine API (see ../../../docs/architecture.md, "Backends and the kernel channel").
 */
export type KernelEndpoint =
  | { kind: 'unix'; path: string }
  | { kind: 'tls'; host: string; port: number; fingerprint256: string; secret: string }
  | DockerExecEndpoint;

/** The runner's socket `socket` inside container `container` of the engine `engine` (its BERTH_DOCKER_HOSTS url). */
export interface DockerExecEndpoint {
  kind: 'docker-exec';
  engine: string;
  container: string;
  socket: string;
  /** Who the exec runs as: the kernel's uid (the runner's socket is its own). */
  user: string;
  /** The interpreter that runs the bridge inside the container. */
  python: string;
}

export function isKernelEndpoint(value: unknown): value is KernelEndpoint {
  if (!value || typeof value !== 'object') return false;
  const e = value as Record<string, unknown>;
  if (e.kind === 'unix') return typeof e.path === 'string';
  if (e.kind === 'docker-exec') return ['engine', 'container', 'socket', 'user', 'python'].every((k) => typeof e[k] === 'string');
  return e.kind === 'tls' && typeof e.host === 'string' && Number.isInteger(e.port) && typeof e.fingerprint256 === 'string' && typeof e.secret === 'string';
}
