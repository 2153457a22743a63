// Types of scripts/docker-engine.mjs for TypeScript tests and benches.
export interface DockerTestEngine {
  /** unix:///…/docker.sock */
  host: string;
  socket: string;
  /** The same dockerd over TLS: tcp://127.0.0.1:PORT, client files (ca.pem, cert.pem, key.pem) in tlsDir. */
  tcpHost: string;
  tlsDir: string;
  /** A client certificate from another CA, which the engine refuses. */
  untrustedTlsDir: string;
  dir: string;
  pid: number;
  images: { python: string; shell: string };
  stop(): Promise<void>;
  /** dockerd stops on its own (its containers with it); nothing is removed. */
  shutdown(): Promise<void>;
}

export const PYTHON_IMAGE: string;
export const SHELL_IMAGE: string;
export function startDockerEngine(options?: { dir?: string; images?: boolean }): Promise<DockerTestEngine>;
export function dockerTestEnv(engine: DockerTestEngine): Record<string, string>;
export function addServiceDefs(root: string): void;
