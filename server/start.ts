/**
 * Starts Berth in one process (CONTRACT §0): the manager API, the dashboard (Next.js), the app proxy, this
 * machine's agent and the singletons. Tests start the manager alone; BERTH_ROLES picks a subset for scale-out
 * (cluster/roles; docs/architecture.md "Scale-out"). The manager API listens in every process: it also serves
 * /healthz and /readyz.
 */
import type { App } from './app';
import { createApp } from './app';
import type { BerthSettings } from './config/env';
import { bootstrap, type BootstrapResult } from './accounts/bootstrap';
import { localAgentId, registerLocalAgent } from './agents/register-local';
import { createManagerServer } from './manager-server';
import { listen, type Listening } from './http/listen';
import { listenersOf } from './metrics/listeners';
import { collectWhenIdle } from './util/idle-collection';
import { BERTH_VERSION } from './version';
import { startSessionRuntime } from './sessions/runtime';
import { startServiceScaler, stopServiceScaler } from './services/scaler';
import { recoverInterruptedClones } from './storage/clone-recovery';
import { startOperations } from './operations/start';
import { effectiveRoles, ROLES, type Role } from './cluster/roles';
import { closeWebSockets, DRAIN_GRACE_MS } from './cluster/drain';

export type { Role } from './cluster/roles';

export interface StartOptions {
  settings: BerthSettings;
  roles?: Role[];
  inMemory?: boolean;
  /** The in-memory database's starting data directory (server/db's `template`). */
  embeddedTemplate?: Blob;
  /** Directory holding the built Next.js app (the project root). */
  projectDir?: string;
  /** Make the dashboard's first visitor's requests before returning (web/warm-up; `npm start` does). */
  warmUpDashboard?: boolean;
  /** Run the dashboard in a worker thread of its own (web/thread; `npm start` does), from projectDir's dist/. */
  webThread?: boolean;
  /** Collect a thread's heap once its listeners have been quiet this long after requests (util/idle-collection; `npm start`: 10 s). */
  idleCollectionMs?: number;
}

export interface Berth {
  app: App;
  bootstrap: BootstrapResult;
  managerUrl: string;
  webUrl?: string;
  appsUrl?: string;
  /** graceMs: how long requests in flight may take to finish (a drain); 0 cuts them. */
  stop(graceMs?: number): Promise<void>;
}

export async function startBerth(options: StartOptions): Promise<Berth> {
  const roles = effectiveRoles(options.roles ?? ROLES);
  const { settings } = options;
  const app = await createApp({ settings, inMemory: options.inMemory, embeddedTemplate: options.embeddedTemplate });
  const boot = await bootstrap(app);
  const singletons = roles.includes('scheduler');
  // Clones the last run left half done must not stay `cloning` forever; with other replicas running they may be
  // theirs, in progress, so only a replica that starts alone recovers them.
  if (singletons && (await app.cluster.alone())) await recoverInterruptedClones(app);
  const agentId = roles.includes('agent') ? await registerLocalAgent(app, BERTH_VERSION) : localAgentId();
  const sessions = await startSessionRuntime(app, agentId, { agent: roles.includes('agent'), singletons });
  if (singletons) app.leases.add({ name: 'service-scaler', start: () => startServiceScaler(app, settings.serviceScaleIntervalMs), stop: () => stopServiceScaler(app) });
  const operations = startOperations(app, roles.filter((r) => r === 'manager' || r === 'web' || r === 'apps'), singletons);
  // What this replica leads from the start (everything on PGlite) has run its first start (reconciliation of
  // what the last run left) before any request.
  await app.leases.start();
  await app.leases.settled();

  const listeners: Array<Pick<Listening, 'close'>> = [];
  const manager = await listen(createManagerServer(app), settings.managerPort, settings.host);
  listeners.push(manager);
  operations.watch('manager', manager.server);
  const stopCollecting = options.idleCollectionMs ? collectWhenIdle(manager.server, options.idleCollectionMs) : () => {};
  let webUrl: string | undefined;
  let appsUrl: string | undefined;
  if (roles.includes('web') && options.webThread) {
    const { startWebThread } = await import('./web/thread');
    const web = await startWebThread({
      managerUrl: manager.url,
      projectDir: options.projectDir ?? process.cwd(),
      dataDir: settings.dataDir,
      host: settings.host,
      port: settings.webPort,
      logLevel: settings.logLevel,
      warmUp: Boolean(options.warmUpDashboard),
      idleCollectionMs: options.idleCollectionMs ?? 0,
      log: app.log,
      // As an uncaught exception would end a process of one thread: its supervisor restarts it whole.
      onCrash: (err) => {
        app.log.fatal({ err }, 'the dashboard thread ended; Berth stops');
        process.exit(1);
      },
    });
    listeners.push(web);
    listenersOf(app).set('web', web);
    webUrl = web.url;
  } else if (roles.includes('web')) {
    const { createWebServer } = await import('./web/next-server');
    const web = await listen(await createWebServer(app, manager.url, options.projectDir ?? process.cwd()), settings.webPort, settings.host);
    listeners.push(web);
    operations.watch('web', web.server);
    webUrl = web.url;
    if (options.warmUpDashboard) await (await import('./web/warm-up')).warmUpDashboard(web.server, app.log);
  }
  if (roles.includes('apps')) {
    const { createAppProxyServer } = await import('./appproxy/server');
    const apps = await listen(createAppProxyServer(app), settings.appPort, settings.host);
    listeners.push(apps);
    operations.watch('apps', apps.server);
    appsUrl = apps.url;
    app.appProxyUrl ??= apps.url;
  }
  return {
    app,
    bootstrap: boot,
    managerUrl: manager.url,
    webUrl,
    appsUrl,
    async stop(graceMs = 0) {
      // A drain: WebSocket clients are told to reconnect (elsewhere), SSE streams end, listeners stop accepting
      // and give requests in flight up to graceMs.
      stopCollecting();
      closeWebSockets(app);
      app.events.close();
      await Promise.all(listeners.reverse().map((l) => l.close(Math.min(graceMs, DRAIN_GRACE_MS))));
      await app.leases.close();
      await stopServiceScaler(app);
      await operations.stop();
      await sessions.stop();
      await app.close();
    },
  };
}
