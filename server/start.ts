/**
 * Starts Berth's listeners in one process (CONTRACT §0): the manager API, the dashboard (Next.js) and the app
 * proxy. Tests start the manager alone; BERTH_ROLES picks a subset for scale-out.
 */
import type { App } from './app';
import { createApp } from './app';
import type { BerthSettings } from './config/env';
import { bootstrap, type BootstrapResult } from './accounts/bootstrap';
import { registerLocalAgent } from './agents/register-local';
import { createManagerServer, listen, type Listening } from './manager-server';
import { BERTH_VERSION } from './version';
import { startSessionRuntime } from './sessions/runtime';
import { startServiceScaler, stopServiceScaler } from './services/scaler';
import { recoverInterruptedClones } from './storage/clone-recovery';
import { startOperations } from './operations/start';

export type Role = 'manager' | 'web' | 'apps';

export interface StartOptions {
  settings: BerthSettings;
  roles?: Role[];
  inMemory?: boolean;
  /** Directory holding the built Next.js app (the project root). */
  projectDir?: string;
}

export interface Berth {
  app: App;
  bootstrap: BootstrapResult;
  managerUrl: string;
  webUrl?: string;
  appsUrl?: string;
  stop(): Promise<void>;
}

export async function startBerth(options: StartOptions): Promise<Berth> {
  const roles = options.roles ?? ['manager', 'web', 'apps'];
  const { settings } = options;
  const app = await createApp({ settings, inMemory: options.inMemory });
  const boot = await bootstrap(app);
  // Before any request: clones the last run left half done must not stay `cloning` forever.
  await recoverInterruptedClones(app);
  const agentId = await registerLocalAgent(app, BERTH_VERSION);
  const sessions = await startSessionRuntime(app, agentId);
  startServiceScaler(app, settings.serviceScaleIntervalMs);
  const operations = startOperations(app, roles);

  const listeners: Listening[] = [];
  const manager = await listen(createManagerServer(app), settings.managerPort, settings.host);
  listeners.push(manager);
  operations.watch('manager', manager.server);
  let webUrl: string | undefined;
  let appsUrl: string | undefined;
  if (roles.includes('web')) {
    const { createWebServer } = await import('./web/next-server');
    const web = await listen(await createWebServer(app, manager.url, options.projectDir ?? process.cwd()), settings.webPort, settings.host);
    listeners.push(web);
    operations.watch('web', web.server);
    webUrl = web.url;
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
    async stop() {
      await stopServiceScaler(app);
      app.events.close();
      for (const l of listeners.reverse()) await l.close();
      await operations.stop();
      await sessions.stop();
      await app.close();
    },
  };
}
