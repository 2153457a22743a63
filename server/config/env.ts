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
  /** A bearer token that may scrape GET /metrics (BERTH_METRICS_TOKEN); signed superadmins always may. */
  metricsToken?: string;
  /** Audit log records older than this are pruned (BERTH_AUDIT_RETENTION_DAYS; default 90). */
  auditRetentionDays: number;
  /** How often the idle culler looks at running sessions (BERTH_IDLE_CHECK_INTERVAL, seconds; default 5). */
  idleCheckIntervalMs: number;
  /** Request metrics and the audit log (BERTH_OBSERVE_REQUESTS; default on: off only to measure their cost). */
  observeRequests: boolean;
  /** The dashboard's password form (BERTH_PASSWORD_LOGIN; default on). */
  passwordLogin: boolean;
  /** Single sign-on through an OpenID Connect provider (BERTH_OIDC_*); absent when BERTH_OIDC_ISSUER is unset. */
  oidc?: OidcSettings;
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
  /** NVIDIA GPUs each engine offers as cuda.device slots (BERTH_DOCKER_GPUS; its host runs NVIDIA's container toolkit). */
  gpus: number;
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

export interface OidcSettings {
  /** The issuer URL, without a trailing slash; its discovery document is <issuer>/.well-known/openid-configuration. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the login page's button says: "Sign in with <name>" (BERTH_OIDC_NAME; default "SSO"). */
  name: string;
  /** The scopes asked for, always including `openid` (BERTH_OIDC_SCOPES; default "openid email profile"). */
  scopes: string;
  /** Where the first login of a new user puts them (BERTH_OIDC_DOMAIN, BERTH_OIDC_PROJECT; default `default`). */
  domain: string;
  project: string;
  /** The ID token claim listing the user's groups (BERTH_OIDC_GROUPS_CLAIM; default `groups`). */
  groupsClaim: string;
  /** Members of this group get the admin role, others lose it at their next login (BERTH_OIDC_ADMIN_GROUP). */
  adminGroup?: string;
  /** Group → project: membership of each project named here follows the group (BERTH_OIDC_GROUP_PROJECTS). */
  groupProjects: Record<string, string[]>;
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

/** Environment variables by name (process.env, or a test's own). */
export type Environment = Record<string, string | undefined>;

/** A flag that is on unless set to one of the usual words for off. */
function flagOn(value: string | undefined, name: string): boolean {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '' || ['1', 'true', 'yes', 'on'].includes(text)) return true;
  if (['0', 'false', 'no', 'off'].includes(text)) return false;
  throw new Error(`invalid ${name}: ${value} (true or false)`);
}

/** `ml-team=ml, vision=cv`: each group and the project its members join. */
function groupProjects(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pair of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [group, project, extra] = pair.split('=').map((p) => p.trim());
    if (!group || !project || extra !== undefined) throw new Error(`invalid BERTH_OIDC_GROUP_PROJECTS entry: ${pair} (group=project)`);
    (out[group] ??= []).push(project);
  }
  return out;
}

/** The single sign-on settings; undefined when BERTH_OIDC_ISSUER is unset. Shared with the dashboard, which reads them per request. */
export function readOidcSettings(env: Environment = process.env): OidcSettings | undefined {
  const issuerText = env.BERTH_OIDC_ISSUER?.trim();
  if (!issuerText) return undefined;
  let issuer: URL;
  try {
    issuer = new URL(issuerText);
  } catch {
    throw new Error(`invalid BERTH_OIDC_ISSUER: ${issuerText}`);
  }
  if (!['http:', 'https:'].includes(issuer.protocol) || issuer.search || issuer.hash) {
    throw new Error(`invalid BERTH_OIDC_ISSUER: ${issuerText} (an http(s) URL without query or fragment)`);
  }
  const clientId = env.BERTH_OIDC_CLIENT_ID?.trim();
  const clientSecret = env.BERTH_OIDC_CLIENT_SECRET;
  if (!clientId || !clientSecret) throw new Error('BERTH_OIDC_ISSUER needs BERTH_OIDC_CLIENT_ID and BERTH_OIDC_CLIENT_SECRET');
  const scopes = (env.BERTH_OIDC_SCOPES?.trim() || 'openid email profile').split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid')) scopes.unshift('openid');
  return {
    issuer: issuerText.replace(/\/+$/, ''),
    clientId,
    clientSecret,
    name: env.BERTH_OIDC_NAME?.trim() || 'SSO',
    scopes: scopes.join(' '),
    domain: env.BERTH_OIDC_DOMAIN?.trim() || 'default',
    project: env.BERTH_OIDC_PROJECT?.trim() || 'default',
    groupsClaim: env.BERTH_OIDC_GROUPS_CLAIM?.trim() || 'groups',
    adminGroup: env.BERTH_OIDC_ADMIN_GROUP?.trim() || undefined,
    groupProjects: groupProjects(env.BERTH_OIDC_GROUP_PROJECTS ?? ''),
  };
}

/** Whether the dashboard shows its password form; it may be off only when single sign-on is configured. */
export function readPasswordLogin(env: Environment = process.env): boolean {
  const on = flagOn(env.BERTH_PASSWORD_LOGIN, 'BERTH_PASSWORD_LOGIN');
  if (!on && !env.BERTH_OIDC_ISSUER?.trim()) throw new Error('BERTH_PASSWORD_LOGIN=false needs single sign-on (BERTH_OIDC_ISSUER): nobody could sign in');
  return on;
}

export function readSettings(env: Environment = process.env): BerthSettings {
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
    passwordLogin: readPasswordLogin(env),
    oidc: readOidcSettings(env),
    metricsToken: env.BERTH_METRICS_TOKEN || undefined,
    auditRetentionDays: seconds(env.BERTH_AUDIT_RETENTION_DAYS, 90),
    idleCheckIntervalMs: seconds(env.BERTH_IDLE_CHECK_INTERVAL, 5) * 1000,
    observeRequests: !env.BERTH_OBSERVE_REQUESTS || flag(env.BERTH_OBSERVE_REQUESTS),
    docker: env.BERTH_DOCKER_HOSTS ? dockerSettings(env) : null,
  };
}

function dockerSettings(env: Environment): DockerSettings {
  const hosts = env.BERTH_DOCKER_HOSTS!.split(',').map((h) => h.trim()).filter(Boolean);
  for (const host of hosts) {
    if (!/^unix:\/\/\/.+$/.test(host) && !/^tcp:\/\/[^/:]+:\d+$/.test(host)) throw new Error(`invalid BERTH_DOCKER_HOSTS entry: ${host} (unix:///path or tcp://host:port)`);
  }
  const tlsDir = env.BERTH_DOCKER_TLS_DIR ? path.resolve(env.BERTH_DOCKER_TLS_DIR) : null;
  if (hosts.some((h) => h.startsWith('tcp://')) && !tlsDir) throw new Error('BERTH_DOCKER_TLS_DIR is required for tcp:// Docker engines');
  const gpus = Number(env.BERTH_DOCKER_GPUS || 0);
  if (!Number.isInteger(gpus) || gpus < 0) throw new Error(`invalid BERTH_DOCKER_GPUS: ${env.BERTH_DOCKER_GPUS} (a whole number of GPUs per engine)`);
  return { hosts, tlsDir, scalingGroup: env.BERTH_DOCKER_SCALING_GROUP || 'docker', gpus };
}
