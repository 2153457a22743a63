/**
 * What happens to one route (an inference session of a service): its session is created, its model server is
 * started once the session runs, it fails (recorded for GET /errors, counted in the service's retries) or is
 * removed (its session terminated, then the route forgotten).
 */
import { randomUUID } from 'node:crypto';
import type { App } from '../app';
import { json } from '../db';
import type { Endpoint, Routing, Session } from '../db/schema';
import { Problem } from '../http/problem';
import { createSession } from '../sessions/create';
import { mainKernel } from '../sessions/execute';
import { terminateSession } from '../sessions/terminate';
import { launchApp } from '../apps/services';
import { inferenceSessionInput, sessionNameFor } from './session-input';
import { readModelDefinition, type ModelDefinition } from './model-definition';

/** The app name a route's model server runs under in its kernel. */
export const MODEL_APP = 'model-service';

const ENDED = new Set(['TERMINATED', 'CANCELLED', 'ERROR', 'TERMINATING']);

export function sessionEnded(status: string | undefined): boolean {
  return status === undefined || ENDED.has(status);
}

/** A new provisioning route with its inference session enqueued; a refused create makes it a failed route. */
export async function provisionRoute(app: App, endpoint: Endpoint, onSessionChange: () => void): Promise<void> {
  const routeId = randomUUID();
  await app.db.insertInto('routings').values({ id: routeId, endpoint_id: endpoint.id }).execute();
  const owner = await app.keypairs.get(endpoint.access_key);
  try {
    if (!owner) throw new Problem('generic-forbidden', "The service owner's keypair is no longer active.");
    const input = inferenceSessionInput(endpoint, sessionNameFor(endpoint.name, routeId), endpoint.access_key);
    const created = await createSession(app, owner, input);
    await app.db.updateTable('routings').set({ session_id: created.sessionId }).where('id', '=', routeId).execute();
    const off = app.events.onStatus(created.sessionId, (status) => {
      if (status === 'RUNNING' || ENDED.has(status)) onSessionChange();
      if (ENDED.has(status)) off();
    });
  } catch (err) {
    await failRoute(app, routeId, errorOf(err, 'The inference session could not be created.'));
  }
}

/** Starts the model server in the route's running session and records its host port. */
export async function startModelServer(app: App, endpoint: Endpoint, route: Routing, session: Session): Promise<ModelDefinition | null> {
  const folder = await app.db.selectFrom('vfolders').selectAll().where('id', '=', endpoint.model_id).executeTakeFirst();
  if (!folder) throw new Error('The model folder no longer exists.');
  const definition = await readModelDefinition(app, folder, endpoint.model_definition_path);
  const command = definition?.startCommand ?? endpoint.startup_command;
  if (!command || (typeof command === 'string' && !command.trim())) throw new Error('Nothing starts the model server (no start_command, no startup_command).');
  const kernel = await mainKernel(app, session);
  const appRoute = await launchApp(app, session, kernel, endpoint.session_owner, {
    name: MODEL_APP,
    protocol: 'http',
    argv: (port) => (Array.isArray(command) ? command.map((part) => part.replaceAll('{port}', String(port))) : ['/bin/sh', '-c', command.replaceAll('{port}', String(port))]),
    env: (port) => ({
      PORT: String(port),
      BERTH_SERVICE_PORT: String(port),
      BERTH_MODEL_PATH: endpoint.model_mount_destination,
      BERTH_SERVICE_ID: endpoint.id,
      BERTH_ROUTE_ID: route.id,
    }),
    waitMs: 0,
  });
  await app.db.updateTable('routings').set({ host_port: appRoute.host_port }).where('id', '=', route.id).execute();
  return definition;
}

/** The route failed: recorded with its error, counted in the service's retries, its session ended. */
export async function failRoute(app: App, routeId: string, error: Record<string, unknown>): Promise<void> {
  // One transaction: a scaler pass that sees the route failed must also see the retry counted, or it provisions
  // one start more than SERVICE_MAX_RETRIES allows.
  const failed = await app.db.transaction().execute(async (trx) => {
    const route = await trx
      .updateTable('routings')
      .set({ status: 'failed_to_start', error: json(error), status_changed: new Date() })
      .where('id', '=', routeId)
      .where('status', 'in', ['provisioning', 'healthy', 'unhealthy'])
      .returningAll()
      .executeTakeFirst();
    if (route) await trx.updateTable('endpoints').set((eb) => ({ retries: eb('retries', '+', 1) })).where('id', '=', route.endpoint_id).execute();
    return route;
  });
  if (!failed) return;
  if (failed.session_id) await endSession(app, failed.session_id, 'failed-to-start');
}

/** Takes the route out of service: `terminating` at once, forgotten once its session has ended. */
export async function removeRoute(app: App, route: Pick<Routing, 'id' | 'session_id'>, reason = 'service-scaled-down'): Promise<void> {
  await app.db.updateTable('routings').set({ status: 'terminating', status_changed: new Date() }).where('id', '=', route.id).execute();
  if (route.session_id) await endSession(app, route.session_id, reason);
  const session = route.session_id ? await app.db.selectFrom('sessions').select('status').where('id', '=', route.session_id).executeTakeFirst() : undefined;
  // A session caught between SCHEDULED and PREPARING cannot be stopped yet: the next pass tries again.
  if (!session || session.status === 'TERMINATED' || session.status === 'CANCELLED') {
    await app.db.deleteFrom('routings').where('id', '=', route.id).execute();
  }
}

async function endSession(app: App, sessionId: string, reason: string): Promise<void> {
  await app.db.deleteFrom('app_routes').where('session_id', '=', sessionId).where('app', '=', MODEL_APP).execute();
  await terminateSession(app, sessionId, reason).catch((err) => app.log.warn({ err, sessionId }, 'service route: session termination failed'));
}

export function errorOf(err: unknown, fallback: string): Record<string, unknown> {
  if (err instanceof Problem) return { name: err.slug, repr: err.detail ?? err.title, data: err.data ?? null };
  return { name: err instanceof Error ? err.name : 'Error', repr: err instanceof Error ? err.message : fallback };
}
