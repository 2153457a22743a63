/** The Docker engine the test command started (scripts/docker-engine.mjs), as the tests of this folder see it. */
export interface TestDockerEngine {
  host: string;
  socket: string;
  images: { python: string; shell: string };
  /** The same dockerd over TLS (tcp://127.0.0.1:PORT), its client files, and a client certificate it refuses. */
  tcpHost: string;
  tlsDir: string;
  untrustedTlsDir: string;
}

export function dockerEngine(): TestDockerEngine {
  const host = process.env.BERTH_TEST_DOCKER_HOST;
  if (!host?.startsWith('unix://')) throw new Error('BERTH_TEST_DOCKER_HOST is not set: run through scripts/with-docker.mjs or npm test');
  return {
    host,
    socket: host.slice('unix://'.length),
    images: JSON.parse(process.env.BERTH_TEST_DOCKER_IMAGES ?? '{}'),
    tcpHost: process.env.BERTH_TEST_DOCKER_TCP_HOST ?? '',
    tlsDir: process.env.BERTH_TEST_DOCKER_TLS_DIR ?? '',
    untrustedTlsDir: process.env.BERTH_TEST_DOCKER_UNTRUSTED_TLS_DIR ?? '',
  };
}
