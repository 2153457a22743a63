/**
 * In-session apps (CONTRACT §11): starting one gives it a host port from the app range and a route the app proxy
 * serves at /app/<route>/ (the app is told that base path). Starting an app that runs already reuses it. The
 * route and port are stored, so a restarted manager keeps serving apps that outlived it.
 */
import { randomBytes } from 'node:crypto';
import type { App } from '../app';
import type { AppRoute, Kernel, KernelServicePort, Session, ServicePort } from '../db/schema';
import { json } from '../db';
import { Problem, badRequest, notFound } from '../http/problem';
import { mainKernel } from '../sessions/execute';
import { acceptsConnections, allocatePort, waitForPort } from './ports';
import { appTunnel, THIS_MACHINE } from './app-hosts';
import { sessionApps } from './session-apps';
import { reachKernel } from '../cluster/kernels';

const START_TIMEOUT_MS = 60_000;

export interface StartAppOptions {
  port?: number;
  envs?: Record<string, string>;
  arguments?: Record<string, string | string[] | null>;
}

export function appBasePath(routeId: string): string {
  return `/app/${routeId}/`;
}

/** The image's definition of `appName`, checked against the options (§11.1 errors). */
export async function servicePortFor(app: App, session: Session, appName: string, options: StartAppOptions): Promise<ServicePort> {
  const port = (await sessionApps(app, session)).find((p) => p.name === appName);
  if (!port) throw notFound('No such app service.', `The image offers no app named "${appName}".`);
  if (session.session_type === 'inference') throw badRequest('Apps cannot be started in inference sessions.');
  if (options.port !== undefined && !port.ports.includes(options.port)) throw badRequest(`The app ${appName} does not offer port ${options.port}.`, { port: 'not offered' });
  for (const name of Object.keys(options.envs ?? {})) {
    if (!(port.allowed_envs ?? []).includes(name)) throw badRequest(`The environment variable ${name} is not allowed for ${appName}.`, { envs: name });
  }
  for (const name of Object.keys(options.arguments ?? {})) {
    if (!(port.allowed_arguments ?? []).includes(name)) throw badRequest(`The argument ${name} is not allowed for ${appName}.`, { arguments: name });
  }
  if (!port.argv?.length && port.protocol !== 'preopen') throw badRequest(`The app ${appName} is not started on demand.`);
  return port;
}

/** Starts (or finds) the app and returns its route. */
export async function ensureApp(app: App, session: Session, appName: string, userId: string, options: StartAppOptions = {}): Promise<AppRoute> {
  const definition = await servicePortFor(app, session, appName, options);
  const kernel = await mainKernel(app, session);
  const existing = await app.db.selectFrom('app_routes').selectAll().where('session_id', '=', session.id).where('app', '=', appName).executeTakeFirst();
  if (existing && (await acceptsConnections(existing.host, existing.host_port, appTunnel(app, existing.host)))) return existing;
  if (existing) await app.db.deleteFrom('app_routes').where('id', '=', existing.id).execute();
  if (definition.protocol === 'preopen') {
    // The user's own server on that port (the sandbox shares the host's network): route to it, start nothing.
    const port = options.port ?? definition.ports[0];
    const host = app.agents.get(kernel.agent_id ?? '')?.appHost(kernel.id) ?? THIS_MACHINE;
    return app.db
      .insertInto('app_routes')
      .values({ id: randomBytes(12).toString('hex'), session_id: session.id, kernel_id: kernel.id, app: appName, protocol: 'http', host, host_port: port, user_uuid: userId })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  const route = await launchApp(app, session, kernel, userId, {
    name: appName,
    protocol: definition.protocol === 'tcp' ? 'tcp' : 'http',
    argv: (hostPort, basePath, host) => {
      const argv = definition.argv!.map((part) => part.replaceAll('{port}', String(hostPort)).replaceAll('{base_url}', basePath).replaceAll('{host}', host));
      for (const [name, value] of Object.entries(options.arguments ?? {})) {
        if (value === null) argv.push(name);
        else for (const v of Array.isArray(value) ? value : [value]) argv.push(name, v);
      }
      return argv;
    },
    env: () => options.envs ?? {},
    waitMs: START_TIMEOUT_MS,
  }).catch((err: unknown) => {
    throw new Problem('internal-server-error', `The app ${appName} failed to start: ${err instanceof Error ? err.message : String(err)}`, { app: appName });
  });
  await recordHostPort(app, kernel.id, definition, route.host_port);
  return route;
}

export interface AppLaunch {
  name: string;
  protocol: 'http' | 'tcp';
  /** The command line, given the address and port the app must listen on and its base path on the app proxy. */
  argv: (hostPort: number, basePath: string, host: string) => string[];
  env: (hostPort: number) => Record<string, string>;
  /** Wait this long for the app to listen (0: return once it is started). */
  waitMs: number;
}

/**
 * Gives the app a host port and a route, and starts it in the kernel. On failure nothing is left behind (the route
 * is deleted, the process stopped) and the error is thrown as it came. Model services start their servers here too.
 */
export async function launchApp(app: App, session: Pick<Session, 'id'>, kernel: Pick<Kernel, 'id' | 'agent_id'>, userId: string, launch: AppLaunch): Promise<AppRoute> {
  const agent = kernel.agent_id ? app.agents.get(kernel.agent_id) : undefined;
  if (!agent) throw new Error(`agent ${kernel.agent_id ?? '(none)'} is not connected to this manager`);
  const routeId = randomBytes(12).toString('hex');
  const hostPort = await allocatePort(app);
  // Where the kernel runs: this machine, or its node in a cluster.
  const host = agent.appHost(kernel.id);
  const route = await app.db
    .insertInto('app_routes')
    .values({ id: routeId, session_id: session.id, kernel_id: kernel.id, app: launch.name, protocol: launch.protocol, host, host_port: hostPort, user_uuid: userId })
    .returningAll()
    .executeTakeFirstOrThrow();
  try {
    // Apps listen where the app proxy reaches them: $BERTH_APP_HOST (this machine's loopback, or the kernel's node).
    const env = { ...launch.env(hostPort), BERTH_APP_HOST: host };
    await agent.startApp(kernel.id, { name: launch.name, argv: launch.argv(hostPort, appBasePath(routeId), host), env });
    if (launch.waitMs > 0) await waitForPort(host, hostPort, launch.waitMs, () => agent.isAlive(kernel.id), appTunnel(app, host));
  } catch (err) {
    await app.db.deleteFrom('app_routes').where('id', '=', routeId).execute();
    if (agent.isAlive(kernel.id)) await agent.stopApp(kernel.id, launch.name).catch(() => undefined);
    throw err;
  }
  return route;
}

async function recordHostPort(app: App, kernelId: string, definition: ServicePort, hostPort: number): Promise<void> {
  const kernel = await app.db.selectFrom('kernels').select('service_ports').where('id', '=', kernelId).executeTakeFirstOrThrow();
  const ports: KernelServicePort[] = kernel.service_ports.filter((p) => p.name !== definition.name);
  ports.push({ ...definition, host_ports: [hostPort] });
  await app.db.updateTable('kernels').set({ service_ports: json(ports) }).where('id', '=', kernelId).execute();
}

/** Stops the app and forgets its route and tokens. */
export async function shutdownApp(app: App, session: Session, appName: string): Promise<void> {
  const route = await app.db.selectFrom('app_routes').selectAll().where('session_id', '=', session.id).where('app', '=', appName).executeTakeFirst();
  const kernel = await app.db.selectFrom('kernels').select(['id', 'agent_id', 'container_id', 'channel']).where('session_id', '=', session.id).where('cluster_role', '=', 'main').executeTakeFirst();
  const agent = kernel ? await reachKernel(app, kernel) : undefined;
  const stopped = agent && kernel && agent.isAlive(kernel.id) ? await agent.stopApp(kernel.id, appName) : false;
  if (!route && !stopped) throw notFound('No such app service.', `No app named "${appName}" runs in this session.`);
  if (route) await app.db.deleteFrom('app_routes').where('id', '=', route.id).execute();
}
