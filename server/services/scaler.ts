/**
 * The service scaler (CONTRACT §13, the scheduler's `scale_services` pass): every interval (10 s by default,
 * BERTH_SERVICE_SCALE_INTERVAL) and right after a service is created, scaled, changed or deleted, it brings each
 * service's routes to its desired count. A route's session that runs gets its model server started and a health
 * monitor; a session that ended fails its route. Missing routes are provisioned (not while the manager is frozen,
 * and not once the service has failed SERVICE_MAX_RETRIES starts, until its errors are cleared); surplus routes
 * go, unhealthy ones first. A destroying service loses every route, then is destroyed.
 */
import type { App } from '../app';
import type { Endpoint, Routing } from '../db/schema';
import { schedulerOf } from '../manager/scheduler';
import { SERVICE_MAX_RETRIES } from './limits';
import { readModelDefinition } from './model-definition';
import { RouteMonitor, monitorsOf } from './health';
import { errorOf, failRoute, provisionRoute, removeRoute, sessionEnded, startModelServer } from './routes';
import { routeTableOf } from './route-table';

const LIVE_ROUTE = ['provisioning', 'healthy', 'unhealthy'];
/** Surplus routes leave in this order: unhealthy, then still starting, then healthy. */
const REMOVAL_ORDER: Record<string, number> = { unhealthy: 0, provisioning: 1, healthy: 2 };

const running = new WeakMap<App, { timer: NodeJS.Timeout; stopped: boolean; inflight: Promise<void> | null }>();

/** Asks for a scaler pass soon (coalesced with one in progress). */
export function requestScaling(app: App, reason: string): void {
  const state = running.get(app);
  // Not the leader (or stopping): the replica running the scaler does it.
  if (!state || state.stopped) return app.cluster.signal('scale-services', reason);
  schedulerOf(app).trigger('scale_services', reason);
}

const registered = new WeakSet<App>();

/** Starts the scaler on this replica (under the `service-scaler` lease; again after losing and regaining it). */
export function startServiceScaler(app: App, intervalMs: number): void {
  if (running.has(app) && !running.get(app)!.stopped) return;
  const state = { timer: setInterval(() => requestScaling(app, 'interval'), intervalMs), stopped: false, inflight: null as Promise<void> | null };
  state.timer.unref();
  running.set(app, state);
  if (!registered.has(app)) {
    registered.add(app);
    app.cluster.onSignal('scale-services', (reason) => requestScaling(app, `${reason}`));
  }
  schedulerOf(app).register('scale_services', async () => {
    if (state.stopped) return;
    state.inflight = scaleServices(app, () => state.stopped);
    try {
      await state.inflight;
    } finally {
      state.inflight = null;
    }
  });
  requestScaling(app, 'start');
}

/**
 * Stops the timer and every route monitor, and waits for the pass and the checks in progress, so nothing starts a
 * session afterwards. Sessions keep running (a restarted manager adopts them).
 */
export async function stopServiceScaler(app: App): Promise<void> {
  const state = running.get(app);
  if (!state) return;
  state.stopped = true;
  clearInterval(state.timer);
  const monitors = [...monitorsOf(app).values()];
  for (const monitor of monitors) monitor.stop();
  await Promise.all([state.inflight?.catch(() => undefined), ...monitors.map((m) => m.done)]);
}

export async function scaleServices(app: App, stopped: () => boolean = () => false): Promise<void> {
  const endpoints = await app.db.selectFrom('endpoints').selectAll().where('lifecycle_stage', 'in', ['created', 'destroying']).orderBy('created_at').execute();
  for (const endpoint of endpoints) {
    if (stopped()) return;
    try {
      await reconcile(app, endpoint, stopped);
    } catch (err) {
      app.log.error({ err, endpointId: endpoint.id }, 'service scaling failed');
    }
  }
}

async function routesOf(app: App, endpointId: string): Promise<Routing[]> {
  return app.db.selectFrom('routings').selectAll().where('endpoint_id', '=', endpointId).orderBy('created_at').execute();
}

async function reconcile(app: App, endpoint: Endpoint, stopped: () => boolean): Promise<void> {
  const again = () => requestScaling(app, 'route-changed');
  const routes = await routesOf(app, endpoint.id);
  const sessionIds = routes.map((r) => r.session_id).filter((id): id is string => Boolean(id));
  const sessions = new Map(
    (sessionIds.length ? await app.db.selectFrom('sessions').selectAll().where('id', 'in', sessionIds).execute() : []).map((s) => [s.id, s]),
  );

  for (const route of routes) {
    if (stopped()) return;
    if (route.status === 'terminating') {
      await removeRoute(app, route);
      continue;
    }
    if (!LIVE_ROUTE.includes(route.status) || !route.session_id) continue;
    const session = sessions.get(route.session_id);
    if (sessionEnded(session?.status) && route.status !== 'provisioning') {
      // A route that was up lost its session (killed, crashed, freeze with force_kill): not a failed start; it
      // goes, and the count below replaces it.
      await removeRoute(app, route, 'service-scaled-down');
      routeTableOf(app).invalidate(endpoint.id);
      continue;
    }
    if (sessionEnded(session?.status)) {
      const info = session?.status_info ? `: ${session.status_info}` : '';
      await failRoute(app, route.id, { name: 'SessionEnded', repr: `The inference session is ${session?.status ?? 'gone'}${info}.`, data: session?.status_data ?? null });
      continue;
    }
    if (session!.status !== 'RUNNING') continue;
    const kernel = await app.db.selectFrom('kernels').select(['id', 'agent_id']).where('session_id', '=', session!.id).where('cluster_role', '=', 'main').executeTakeFirst();
    const agent = kernel?.agent_id ? app.agents.get(kernel.agent_id) : undefined;
    if (!kernel || !agent) continue;
    if (route.host_port === null) {
      try {
        const definition = await startModelServer(app, endpoint, route, session!);
        const started = await app.db.selectFrom('routings').select('host_port').where('id', '=', route.id).executeTakeFirstOrThrow();
        RouteMonitor.start(app, { routeId: route.id, endpointId: endpoint.id, port: started.host_port!, kernelId: kernel.id, agent, check: definition?.healthCheck ?? null }, again);
      } catch (err) {
        await failRoute(app, route.id, errorOf(err, 'The model server could not be started.'));
      }
    } else if (!monitorsOf(app).has(route.id)) {
      // A route that outlived a manager restart: watch it again.
      const folder = await app.db.selectFrom('vfolders').selectAll().where('id', '=', endpoint.model_id).executeTakeFirst();
      const definition = folder ? await readModelDefinition(app, folder, endpoint.model_definition_path).catch(() => null) : null;
      RouteMonitor.start(app, { routeId: route.id, endpointId: endpoint.id, port: route.host_port, kernelId: kernel.id, agent, check: definition?.healthCheck ?? null }, again);
    }
  }

  const current = await routesOf(app, endpoint.id);
  const live = current.filter((r) => LIVE_ROUTE.includes(r.status));
  if (endpoint.lifecycle_stage === 'destroying') {
    for (const route of live) await removeRoute(app, route, 'user-requested');
    const left = await app.db.selectFrom('routings').select('id').where('endpoint_id', '=', endpoint.id).where('status', '<>', 'failed_to_start').execute();
    if (!left.length) {
      await app.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('routings').where('endpoint_id', '=', endpoint.id).execute();
        await trx.deleteFrom('endpoint_tokens').where('endpoint_id', '=', endpoint.id).execute();
        await trx.updateTable('endpoints').set({ lifecycle_stage: 'destroyed', destroyed_at: new Date() }).where('id', '=', endpoint.id).execute();
      });
    }
    routeTableOf(app).invalidate(endpoint.id);
    return;
  }

  if (live.length > endpoint.desired_session_count) {
    const surplus = [...live]
      .sort((a, b) => REMOVAL_ORDER[a.status] - REMOVAL_ORDER[b.status] || b.created_at.getTime() - a.created_at.getTime())
      .slice(0, live.length - endpoint.desired_session_count);
    for (const route of surplus) await removeRoute(app, route);
    routeTableOf(app).invalidate(endpoint.id);
    return;
  }
  if (app.manager.frozen) return;
  for (let missing = endpoint.desired_session_count - live.length; missing > 0; missing--) {
    if (stopped()) return;
    const fresh = await app.db.selectFrom('endpoints').select(['retries', 'lifecycle_stage', 'desired_session_count']).where('id', '=', endpoint.id).executeTakeFirst();
    if (!fresh || fresh.lifecycle_stage !== 'created' || fresh.retries >= SERVICE_MAX_RETRIES) return;
    await provisionRoute(app, endpoint, again);
  }
}
