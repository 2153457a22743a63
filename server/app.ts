/**
 * The manager core's shared services, built once per process and handed to every request. Domain modules take
 * what they need from here; nothing else holds global state.
 */
import type { Logger } from 'pino';
import { createLogger } from './util/logger';
import { openDatabase, type Db } from './db';
import type { BerthSettings } from './config/env';
import { ConfigStore } from './config/store';
import { KeypairCache } from './auth/keypair-cache';
import { RateLimiter, SharedRateLimiter, type RateLimits } from './auth/rate-limit';
import { ManagerState } from './manager/state';
import { EventBus } from './events/bus';
import type { Agent } from './agents/agent';
import { LocalCluster, PgCluster, type Cluster } from './cluster/notify';
import { Leases } from './cluster/leases';

/** The session whose submission asks for a scheduling pass, and its reserved start time. */
export interface Submitted {
  id: string;
  startsAt: Date | null;
}

export interface App {
  settings: BerthSettings;
  db: Db;
  dbKind: 'pglite' | 'postgres';
  log: Logger;
  config: ConfigStore;
  keypairs: KeypairCache;
  rateLimiter: RateLimits;
  manager: ManagerState;
  events: EventBus;
  /** The other replicas on the same PostgreSQL (cluster/notify); in process on PGlite. */
  cluster: Cluster;
  /** The singletons' leader election (cluster/leases); everything runs here on PGlite. */
  leases: Leases;
  /** Agents this manager drives, by agent id (the local one, and remote backends later). */
  agents: Map<string, Agent>;
  /** Where clients reach the app proxy (set once it listens, or from BERTH_APP_PROXY_URL). */
  appProxyUrl: string | null;
  /**
   * Asks for a scheduling pass soon: the one way any part asks (set by the sessions module at start). `reason`
   * (default `event`) is what GET /manager/scheduler/status reports as the pass's trigger. `submitted`: the
   * session whose submission asks (and nothing else): the pass may look at it alone (./sessions/scheduler/run).
   */
  triggerScheduler: (reason?: string, submitted?: Submitted) => void;
  close(): Promise<void>;
}

export interface CreateAppOptions {
  settings: BerthSettings;
  /** Run PGlite in memory instead of in the data directory (tests). */
  inMemory?: boolean;
  /** The in-memory database's starting data directory (server/db's `template`). */
  embeddedTemplate?: Blob;
  log?: Logger;
}

export async function createApp({ settings, inMemory, embeddedTemplate, log }: CreateAppOptions): Promise<App> {
  const logger = log ?? createLogger(settings.logLevel);
  const opened = await openDatabase({
    url: settings.databaseUrl,
    dataDir: inMemory ? undefined : `${settings.dataDir}/db`,
    template: embeddedTemplate,
  });
  const shared = opened.kind === 'postgres' && settings.databaseUrl;
  const cluster = shared ? await PgCluster.open(opened.db, settings.databaseUrl!, logger) : new LocalCluster();
  const leases = new Leases(shared ? settings.databaseUrl! : null, logger);
  const config = new ConfigStore(opened.db, cluster);
  const manager = new ManagerState(config);
  await manager.load();
  return {
    settings,
    db: opened.db,
    dbKind: opened.kind,
    log: logger,
    config,
    keypairs: new KeypairCache(opened.db, cluster),
    rateLimiter: shared ? new SharedRateLimiter(opened.db) : new RateLimiter(),
    manager,
    events: new EventBus(cluster),
    cluster,
    leases,
    agents: new Map(),
    appProxyUrl: settings.appProxyUrl ?? null,
    triggerScheduler: () => undefined,
    async close() {
      await leases.close();
      await cluster.close();
      await opened.close();
    },
  };
}
