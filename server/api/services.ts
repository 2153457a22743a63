/** §Model services: create, inspect, scale, route, token and destroy model services (CONTRACT §13). */
import { z } from 'zod';
import { route, type RequestContext } from '../http/route';
import { bool, fold, int } from '../http/params';
import { CONFIG_ALIASES, KERNEL_ALIASES } from '../sessions/inputs';
import { createService } from '../services/create';
import { listServices } from '../services/list';
import { findService } from '../services/access';
import { serveInfo } from '../services/shapes';
import { destroyService } from '../services/destroy';
import { serviceErrors } from '../services/errors';
import { clearServiceErrors } from '../services/clear-errors';
import { scaleService } from '../services/scale';
import { syncService } from '../services/sync';
import { updateRoute } from '../services/update-route';
import { removeServiceRoute } from '../services/remove-route';
import { issueServiceToken } from '../services/tokens';
import type { App } from '../app';
import type { Endpoint } from '../db/schema';

const SERVICE_ALIASES: Record<string, string[]> = {
  ...KERNEL_ALIASES,
  name: ['service_name'],
  desired_session_count: ['desiredSessionCount', 'replicas'],
  startup_command: ['startupCommand'],
  open_to_public: ['openToPublic'],
};

const extraMount = z.object({
  permission: z.enum(['ro', 'rw', 'wd']).optional(),
  type: z.string().optional(),
  mount_destination: z.string().min(1).nullish(),
});

const createSchema = z.preprocess(
  (v) => fold(SERVICE_ALIASES, v),
  z.object({
    name: z.string().min(1),
    desired_session_count: int().pipe(z.number().min(0, 'must be ≥ 0')),
    image: z.string().min(1),
    arch: z.string().min(1).optional(),
    group: z.string().min(1).default('default'),
    domain: z.string().min(1).optional(),
    cluster_size: int().pipe(z.number().min(1, 'must be at least 1').max(64)).default(1),
    cluster_mode: z.enum(['single-node', 'multi-node']).default('single-node'),
    tag: z.string().nullish(),
    startup_command: z.string().nullish(),
    bootstrap_script: z.string().nullish(),
    callback_url: z.url().nullish(),
    owner_access_key: z.string().nullish(),
    open_to_public: bool().default(false),
    runtime_variant: z.enum(['custom', 'vllm', 'nim', 'cmd']).default('custom'),
    config: z.preprocess(
      (v) => fold(CONFIG_ALIASES, v),
      z.object({
        model: z.string().min(1),
        model_version: z.union([z.string(), z.number()]).nullish(),
        model_mount_destination: z.string().min(1),
        model_definition_path: z.string().min(1).nullish(),
        environ: z.record(z.string(), z.string()).optional(),
        scaling_group: z.string().min(1).optional(),
        resources: z.record(z.string(), z.union([z.number(), z.string()])).optional(),
        resource_opts: z.record(z.string(), z.unknown()).optional(),
        extra_mounts: z.record(z.string(), extraMount).optional(),
      }),
    ),
  }),
);

const byId = z.object({ service_id: z.string().min(1) });
const lookup = (ctx: RequestContext<{ service_id: string }>) => findService(ctx.app, ctx.principal, ctx.input.service_id);

/** A route on one service the caller reaches (404 otherwise) that answers `operation(app, service)`. */
function onService(method: 'GET' | 'POST' | 'DELETE', suffix: string, summary: string, operation: (app: App, service: Endpoint) => unknown) {
  return route({
    method, path: `/services/:service_id${suffix}`, privilege: 'user', status: 'FROZEN', input: byId, summary,
    handler: async (ctx) => operation(ctx.app, await lookup(ctx)),
  });
}

export const serviceRoutes = [
  route({
    method: 'GET', path: '/services', privilege: 'user', status: 'FROZEN', input: z.object({ name: z.string().nullish() }),
    summary: "The caller's model services",
    handler: ({ app, principal, input }) => listServices(app, principal, input.name),
  }),
  route({
    method: 'POST', path: '/services', privilege: 'user', status: 'RUNNING', input: createSchema, freeText: ['startup_command', 'bootstrap_script', 'config.environ'],
    summary: 'Create a model service (its inference sessions are started by the scaler)',
    handler: ({ app, principal, input }) => createService(app, principal, input),
  }),
  onService('GET', '', 'A model service (ServeInfo)', serveInfo),
  onService('DELETE', '', 'Destroy a model service (its routes drain, then it is destroyed)', destroyService),
  onService('GET', '/errors', 'Failed routes of the service and its retry count', serviceErrors),
  onService('POST', '/errors/clear', 'Forget failed routes and reset retries', clearServiceErrors),
  route({
    method: 'POST', path: '/services/:service_id/scale', privilege: 'user', status: 'FROZEN', input: byId.extend({ to: int() }),
    summary: 'Set the desired number of sessions',
    handler: async (ctx) => scaleService(ctx.app, await lookup(ctx), ctx.input.to),
  }),
  onService('POST', '/sync', 'Push the healthy route table to the app proxy again', syncService),
  route({
    method: 'PUT', path: '/services/:service_id/routings/:route_id', privilege: 'user', status: 'FROZEN',
    input: byId.extend({ route_id: z.string().min(1), traffic_ratio: z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), z.number().min(0, 'must be ≥ 0').max(1e6)) }),
    summary: "Set a route's traffic ratio",
    handler: async (ctx) => updateRoute(ctx.app, await lookup(ctx), ctx.input.route_id, ctx.input.traffic_ratio),
  }),
  route({
    method: 'DELETE', path: '/services/:service_id/routings/:route_id', privilege: 'user', status: 'FROZEN', input: byId.extend({ route_id: z.string().min(1) }),
    summary: 'Remove a route (the desired count drops by one)',
    handler: async (ctx) => removeServiceRoute(ctx.app, await lookup(ctx), ctx.input.route_id),
  }),
  route({
    method: 'POST', path: '/services/:service_id/token', privilege: 'user', status: 'FROZEN',
    input: byId.extend({ duration: z.string().nullish(), valid_until: z.preprocess((v) => (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v), z.number().nullish()) }),
    summary: "A token for calling the service's endpoint",
    handler: async (ctx) => issueServiceToken(ctx.app, ctx.principal, await lookup(ctx), ctx.input),
  }),
];
