/** Berth's settings, read once from the environment (CONTRACT §0). Every variable is optional. */
import path from 'node:path';

export interface BerthSettings {
  dataDir: string;
  databaseUrl?: string;
  host: string;
  managerPort: number;
  webPort: number;
  appPort: number;
  adminEmail: string;
  adminPassword?: string;
  adminAccessKey?: string;
  adminSecretKey?: string;
  allowSignup: boolean;
  logLevel: string;
  /** Include stack traces in 500 answers (BERTH_DEBUG). */
  debug: boolean;
  /** The project directory (kernel runner, built dashboard): BERTH_HOME, else the working directory. */
  homeDir: string;
  /** The unprivileged uid kernels run as when Berth runs as root (BERTH_KERNEL_UID). */
  kernelUid: number;
  /** Host ports handed to in-session apps (BERTH_APP_PORT_RANGE, e.g. 30000-30999). */
  appPortRange: [number, number];
  /** The app proxy's public address when it runs elsewhere (BERTH_APP_PROXY_URL); else this process's. */
  appProxyUrl?: string;
  /** Wildcard-subdomain mode: apps at https://<route>.<domain> (BERTH_APP_DOMAIN, e.g. apps.example.com). */
  appDomain?: string;
  /** How often the model-service scaler runs (BERTH_SERVICE_SCALE_INTERVAL, seconds; default 10). */
  serviceScaleIntervalMs: number;
  /** The Slurm backend (BERTH_SLURM_*); null when BERTH_SLURM_CONF is unset. */
  slurm: SlurmSettings | null;
  /** The Docker backend (BERTH_DOCKER_*); null when BERTH_DOCKER_HOSTS is unset. */
  docker: DockerSettings | null;
}

export interface DockerSettings {
  /** Engines, each one agent: `unix:///path` or `tcp://host:port` (TLS with the client certificates of tlsDir). */
  hosts: string[];
  /** ca.pem, cert.pem, key.pem for tcp:// engines (BERTH_DOCKER_TLS_DIR). */
  tlsDir: string | null;
  /** Sessions whose config.scaling_group is this run in containers. */
  scalingGroup: string;
}

export interface SlurmSettings {
  /** slurm.conf of the cluster (Slurm's commands must be on PATH). */
  conf: string;
  /** The partition whose nodes are agents; null: the cluster's default partition. */
  partition: string | null;
  /** Sessions whose config.scaling_group is this run on Slurm. */
  scalingGroup: string;
  /** `project`: each session's project is its Slurm account; another value: that account; null: none. */
  account: string | null;
}

function port(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`invalid port: ${value}`);
  return n;
}

function portRange(text: string): [number, number] {
  const match = /^(\d+)-(\d+)$/.exec(text.trim());
  const [low, high] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!(low >= 1024 && high <= 65535 && low <= high)) throw new Error(`invalid port range: ${text}`);
  return [low, high];
}

function seconds(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`invalid interval: ${value}`);
  return n;
}

function flag(value: string | undefined): boolean {
  return ['1', 'true', 'yes', 'on'].includes((value ?? '').toLowerCase());
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): BerthSettings {
  return {
    dataDir: path.resolve(env.BERTH_DATA_DIR || './data'),
    databaseUrl: env.BERTH_DATABASE_URL || undefined,
    host: env.BERTH_HOST || '127.0.0.1',
    managerPort: port(env.BERTH_MANAGER_PORT, 8081),
    webPort: port(env.BERTH_WEB_PORT, 3000),
    appPort: port(env.BERTH_APP_PORT, 8090),
    adminEmail: env.BERTH_ADMIN_EMAIL || 'admin@berth.local',
    adminPassword: env.BERTH_ADMIN_PASSWORD || undefined,
    adminAccessKey: env.BERTH_ADMIN_ACCESS_KEY || undefined,
    adminSecretKey: env.BERTH_ADMIN_SECRET_KEY || undefined,
    allowSignup: flag(env.BERTH_ALLOW_SIGNUP),
    logLevel: env.BERTH_LOG_LEVEL || 'info',
    debug: flag(env.BERTH_DEBUG),
    homeDir: path.resolve(env.BERTH_HOME || process.cwd()),
    kernelUid: env.BERTH_KERNEL_UID ? Number(env.BERTH_KERNEL_UID) : 64000,
    appPortRange: portRange(env.BERTH_APP_PORT_RANGE || '30000-30999'),
    appProxyUrl: env.BERTH_APP_PROXY_URL || undefined,
    appDomain: env.BERTH_APP_DOMAIN || undefined,
    serviceScaleIntervalMs: seconds(env.BERTH_SERVICE_SCALE_INTERVAL, 10) * 1000,
    slurm: env.BERTH_SLURM_CONF
      ? {
          conf: path.resolve(env.BERTH_SLURM_CONF),
          partition: env.BERTH_SLURM_PARTITION || null,
          scalingGroup: env.BERTH_SLURM_SCALING_GROUP || 'slurm',
          account: env.BERTH_SLURM_ACCOUNT || null,
        }
      : null,
    docker: env.BERTH_DOCKER_HOSTS ? dockerSettings(env) : null,
  };
}

function dockerSettings(env: NodeJS.ProcessEnv): DockerSettings {
  const hosts = env.BERTH_DOCKER_HOSTS!.split(',').map((h) => h.trim()).filter(Boolean);
  for (const host of hosts) {
    if (!/^unix:\/\/\/.+$/.test(host) && !/^tcp:\/\/[^/:]+:\d+$/.test(host)) throw new Error(`invalid BERTH_DOCKER_HOSTS entry: ${host} (unix:///path or tcp://host:port)`);
  }
  const tlsDir = env.BERTH_DOCKER_TLS_DIR ? path.resolve(env.BERTH_DOCKER_TLS_DIR) : null;
  if (hosts.some((h) => h.startsWith('tcp://')) && !tlsDir) throw new Error('BERTH_DOCKER_TLS_DIR is required for tcp:// Docker engines');
  return { hosts, tlsDir, scalingGroup: env.BERTH_DOCKER_SCALING_GROUP || 'docker' };
}
