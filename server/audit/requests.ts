/**
 * The audit record of a manager API request that can change state: every route but GET (and HEAD), recorded when
 * the answer is sent, whatever it was. GraphQL is recorded per mutation (./graphql), not per POST. Records name
 * the caller, the route pattern, the ids the request named and the outcome; never a request body.
 */
import type { IncomingMessage } from 'node:http';
import type { App } from '../app';
import { clientAddress } from '../auth/authenticate';
import type { Principal } from '../auth/principal';
import type { RouteDef } from '../http/route';
import { pathParameters, routePattern } from '../metrics/routes';
import { auditOf, clip } from './writer';

/** Routes whose POSTs are recorded per GraphQL mutation instead. */
const GRAPHQL_PATTERNS = new Set(['/admin/gql', '/admin/graphql']);

/**
 * Body fields that name what a request acts on. Only these are copied into `target`: passwords, keys, tokens,
 * code and other content never are.
 */
const TARGET_FIELDS = [
  'name', 'id', 'email', 'target_name', 'new_name', 'inv_id', 'task_id', 'key', 'host', 'folder_host', 'group', 'image',
  'vfolder_id', 'session_id', 'service_id', 'route_id', 'kernel_id', 'log_id', 'agent_id', 'access_key', 'domain',
];

export interface FinishedRequest {
  req: IncomingMessage;
  route: RouteDef;
  method: string;
  status: number;
  requestId: string;
  principal?: Principal | null;
  /** The validated input, when the request got that far. */
  input?: unknown;
}

export function isAudited(route: RouteDef, method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && !GRAPHQL_PATTERNS.has(routePattern(route));
}

function stringField(input: unknown, field: string): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** The ids a request named: its path parameters, then the naming fields of its body. */
export function targetOf(route: RouteDef, path: string, input: unknown): string | null {
  const target: Record<string, string> = {};
  for (const [name, value] of Object.entries(pathParameters(route, path))) target[name] = clip(value)!;
  for (const field of TARGET_FIELDS) {
    if (field in target) continue;
    const value = stringField(input, field);
    if (value !== undefined) target[field] = clip(value)!;
  }
  return Object.keys(target).length ? JSON.stringify(target) : null;
}

export function auditRequest(app: App, done: FinishedRequest): void {
  const rawUrl = done.req.url ?? '/';
  const queryAt = rawUrl.indexOf('?');
  const path = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
  const principal = done.principal ?? null;
  // An unsigned request (a login, a sign-up) has no caller yet: the account it names is the actor.
  const tried = principal ? undefined : (stringField(done.input, 'email') ?? stringField(done.input, 'username'));
  auditOf(app).record({
    created_at: new Date(),
    actor_email: clip(principal?.email ?? tried),
    access_key: principal?.accessKey ?? null,
    client_ip: clientAddress(done.req),
    action: `${done.method} ${routePattern(done.route)}`,
    target: targetOf(done.route, path, done.input),
    status: String(done.status),
    request_id: done.requestId,
  });
}
