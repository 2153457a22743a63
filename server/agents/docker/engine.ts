/**
 * One Docker engine as Berth reaches it: `unix:///path` (the kernel channel's Unix sockets are then on this
 * machine) or `tcp://host:port` with TLS client certificates (ca.pem, cert.pem, key.pem of BERTH_DOCKER_TLS_DIR).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type Docker from 'dockerode';

export interface DockerEngine {
  /** As configured, e.g. unix:///run/docker.sock. */
  url: string;
  /** The agent id: `docker-<host>` for tcp engines, `docker-<socket path>` (slashes as dashes) for unix ones. */
  agentId: string;
  local: boolean;
  /** The address the agents row shows (and the app proxy trusts): 127.0.0.1 for a local engine, else its host. */
  addr: string;
  docker: Docker;
  /** The same engine with a short timeout, for heartbeats: a hung engine is a lost one. */
  probe: Docker;
}

const PROBE_TIMEOUT_MS = 3_000;
/** Socket inactivity, for everything else (a commit or a pull may be quiet for a while, never this long). */
const API_TIMEOUT_MS = 300_000;

export function engineAgentId(url: string): string {
  const rest = url.replace(/^(unix|tcp):\/\//, '');
  return `docker-${rest.replace(/^\/+/, '').replace(/[^A-Za-z0-9.]+/g, '-')}`.slice(0, 64);
}

/**
 * dockerode is loaded by the first engine connected: with the gRPC, protobuf and SSH libraries it brings it is
 * tens of MB of code and heap that a manager without Docker engines never uses.
 */
export async function connectEngine(url: string, tlsDir: string | null): Promise<DockerEngine> {
  const { default: Docker } = await import('dockerode');
  const agentId = engineAgentId(url);
  if (url.startsWith('unix://')) {
    const socketPath = url.slice('unix://'.length);
    return { url, agentId, local: true, addr: '127.0.0.1', docker: new Docker({ socketPath, timeout: API_TIMEOUT_MS }), probe: new Docker({ socketPath, timeout: PROBE_TIMEOUT_MS }) };
  }
  const match = /^tcp:\/\/([^/:]+):(\d+)$/.exec(url);
  if (!match) throw new Error(`not a Docker engine address: ${url}`);
  if (!tlsDir) throw new Error(`${url}: a tcp:// engine needs BERTH_DOCKER_TLS_DIR`);
  const read = (file: string) => readFileSync(path.join(tlsDir, file));
  const options = { protocol: 'https' as const, host: match[1], port: Number(match[2]), ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') };
  return { url, agentId, local: false, addr: match[1], docker: new Docker({ ...options, timeout: API_TIMEOUT_MS }), probe: new Docker({ ...options, timeout: PROBE_TIMEOUT_MS }) };
}
