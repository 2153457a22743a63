/**
 * Where a kernel runner listens, as stored on the kernel's row so that any manager process can reach it:
 * a Unix socket on this machine, or a TLS port on another node, pinned to the kernel's own certificate and
 * opened with the kernel's secret (see ../../../docs/architecture.md, "Backends and the kernel channel").
 */
export type KernelEndpoint =
  | { kind: 'unix'; path: string }
  | { kind: 'tls'; host: string; port: number; fingerprint256: string; secret: string };

export function isKernelEndpoint(value: unknown): value is KernelEndpoint {
  if (!value || typeof value !== 'object') return false;
  const e = value as Record<string, unknown>;
  if (e.kind === 'unix') return typeof e.path === 'string';
  return e.kind === 'tls' && typeof e.host === 'string' && Number.isInteger(e.port) && typeof e.fingerprint256 === 'string' && typeof e.secret === 'string';
}
