/**
 * The request pipeline's one hook (server/http/pipeline.ts): it hands each request a RequestFacts to fill in as it
 * learns the route, the caller and the input; when the answer ends, the request is counted and timed by route
 * pattern and, if it can change state, written to the audit log. The hot path is a closure, a listener and,
 * at the end, two prom-client calls on cached label children.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import type { RouteDef } from '../http/route';
import { auditRequest, isAudited } from '../audit/requests';
import { metricsOf, type BerthMetrics } from './registry';
import { methodLabel, routePattern } from './routes';

export interface RequestFacts {
  route?: RouteDef;
  /** The verified caller (null on an unsigned route); unset while the signature is not checked. */
  principal?: Principal | null;
  /** The validated input. */
  input?: unknown;
}

/** Written to and never read when observation is off. */
const IGNORED: RequestFacts = {};

/** A client that hung up before any answer (nginx's convention). */
const CLIENT_GONE = 499;

interface Series {
  count: { inc(): void };
  duration: { observe(value: number): void };
}

const seriesByMetrics = new WeakMap<BerthMetrics, Map<string, Series>>();

function series(metrics: BerthMetrics, method: string, route: string, status: number): Series {
  let cache = seriesByMetrics.get(metrics);
  if (!cache) seriesByMetrics.set(metrics, (cache = new Map()));
  const key = `${method} ${route} ${status}`;
  let found = cache.get(key);
  if (!found) {
    found = { count: metrics.httpRequests.labels(method, route, String(status)), duration: metrics.httpDuration.labels(method, route) };
    cache.set(key, found);
  }
  return found;
}

export function observeRequest(app: App, req: IncomingMessage, res: ServerResponse, requestId: string): RequestFacts {
  if (!app.settings.observeRequests) return IGNORED;
  const facts: RequestFacts = {};
  const started = performance.now();
  res.once('close', () => {
    const route = facts.route;
    const status = res.headersSent ? res.statusCode : CLIENT_GONE;
    const method = route && req.method !== 'HEAD' ? route.method : methodLabel(req.method);
    const one = series(metricsOf(app), method, route ? routePattern(route) : 'unmatched', status);
    one.count.inc();
    // A stream's life is not a response time.
    if (!route?.stream) one.duration.observe((performance.now() - started) / 1000);
    if (route && isAudited(route, method)) {
      auditRequest(app, { req, route, method, status, requestId, principal: facts.principal, input: facts.input });
    }
  });
  return facts;
}
