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
    metricsToken: env.BERTH_METRICS_TOKEN || undefined,
    auditRetentionDays: seconds(env.BERTH_AUDIT_RETENTION_DAYS, 90),
    idleCheckIntervalMs: seconds(env.BERTH_IDLE_CHECK_INTERVAL, 5) * 1000,
    observeRequests: !env.BERTH_OBSERVE_REQUESTS || flag(env.BERTH_OBSERVE_REQUESTS),
  };
}
