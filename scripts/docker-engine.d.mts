// Types of scripts/docker-engine.mjs for TypeScript tests and benches.
export interface DockerTestEngine {
  /** unix:///…/docker.sock */
  host: string;
  socket: string;
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
export function dockerTestEnv(engine: DockerTestEngine): { BERTH_TEST_DOCKER_HOST: string; BERTH_TEST_DOCKER_IMAGES: string };
export function addServiceDefs(root: string): void;
