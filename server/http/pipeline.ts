/**
 * The request path of every manager API call, written once (docs/architecture.md, "How a signed request
 * travels"): route → credentials → body → signature → rate limit → privilege → manager status → validation →
 * handler → JSON or problem+json, with rate-limit headers and Content-Language on every answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { ZodError } from 'zod';
import type { App } from '../app';
import { authenticate, clientAddress } from '../auth/authenticate';
import { isAdmin, isSuperadmin, type Principal } from '../auth/principal';
import { ANONYMOUS_RATE_LIMIT, RATE_LIMIT_WINDOW_S, type RateLimitState } from '../auth/rate-limit';
import { refuseControlCharacters } from './control-characters';
import { fieldErrors } from './params';
import { Problem } from './problem';
import { answerJson, isRelayed } from './relayed';
import { HANDLED, isRawReply, type Privilege, type RouteDef } from './route';
import { Router } from './router';
import { observeRequest, type RequestFacts } from '../metrics/requests';

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const EMPTY_BODY = Buffer.alloc(0);
const UNLIMITED_TEXT = '2147483647';
const ANONYMOUS_LIMIT_TEXT = String(ANONYMOUS_RATE_LIMIT);
const WINDOW_TEXT = String(RATE_LIMIT_WINDOW_S);
const OVERRIDABLE = new Set(['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'POST']);

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function createRequestHandler(app: App, routes: RouteDef[]): RequestHandler {
  const router = new Router(routes);
  return (req, res) => handle(app, router, req, res);
}

let requestCounter = 0;
const processTag = process.pid.toString(36);

async function handle(app: App, router: Router, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = `${processTag}-${(++requestCounter).toString(36)}`;
  // Written once with the answer (writeHead): cheaper than a setHeader per header on every request.
  const headers = answerHeaders();
  // Metrics and the audit log read what the request turned out to be once its answer ends (server/metrics/).
  const seen = observeRequest(app, req, res, requestId);
  let route: RouteDef | undefined;
  const relayed = isRelayed(req);
  try {
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const path = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
    const method = effectiveMethod(req);
    const match = router.find(method, path);
    if (!match) {
      const allowed = router.allowed(path);
      if (allowed.length) throw new Problem('method-not-allowed', `${method} is not allowed here.`, undefined, { headers: { Allow: allowed.join(', ') } });
      throw new Problem('url-not-found', `No API route at ${path}.`, path);
    }
    route = seen.route = match.route;
    // Awaited only when something is really pending (a body to read, a keypair to load): the common signed GET
    // passes every check without a tick.
    let admission = admit(app, route, req, method, rawUrl, queryAt, match.params, headers, seen);
    if (admission instanceof Promise) admission = await admission;
    const { principal, input, rawBody, clientIp } = admission;
    if (route.websocket) throw new Problem('upgrade-required', 'Connect to this endpoint with a WebSocket upgrade.', undefined, { headers: { Upgrade: 'websocket' } });
    // A streaming handler writes its own head: give it the common headers now.
    if (route.stream) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    let result = route.handler({
      app,
      req,
      res,
      input,
      principal,
      rawBody,
      requestId,
      clientIp,
      relayed,
    });
    if (result instanceof Promise) result = await result;
    if (result === HANDLED) return;
    if (isRawReply(result)) return sendRaw(res, method, result, headers);
    sendJson(res, method, 200, result ?? {}, headers, relayed);
    if (app.log.isLevelEnabled('debug')) app.log.debug({ requestId, method, path, status: 200 }, 'request');
  } catch (error) {
    const problem = toProblem(error, app);
    if (problem.status >= 500) app.log.error({ requestId, err: error, url: req.url }, 'request failed');
    else app.log.info({ requestId, method: req.method, url: req.url, status: problem.status, type: problem.slug }, 'request refused');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    Object.assign(headers, problem.headers);
    if (problem.status === 413) headers.Connection = 'close';
    sendJson(res, req.method ?? 'GET', problem.status, problem.toJSON(), headers, relayed, 'application/problem+json');
  }
}

export interface Admission {
  principal: Principal;
  input: unknown;
  rawBody: Buffer;
  clientIp: string;
  relayed: boolean;
}

/**
 * The checks every request passes before its handler, in the order of CONTRACT §2.3: credentials present, body
 * (bounded), signature, rate limit, privilege, manager status, input validation. HTTP and WebSocket upgrades
 * both come through here. Rate-limit headers are written into `headers`. A promise only when a body has to be
 * read or a keypair loaded.
 */
export function admit(
  app: App,
  route: RouteDef,
  req: IncomingMessage,
  method: string,
  rawUrl: string,
  queryAt: number,
  params: Record<string, string | undefined>,
  headers: Record<string, string>,
  seen?: RequestFacts,
): Admission | Promise<Admission> {
  const signed = route.privilege !== 'none';
  if (signed && !req.headers.authorization) throw new Problem('auth-failed', 'Authorization header is missing.');
  const admitBody = (rawBody: Buffer): Admission | Promise<Admission> => {
    const clientIp = clientAddress(req);
    const pass = (principal: Principal | null): Admission | Promise<Admission> => {
      if (seen) seen.principal = principal;
      if (!principal) return admitted(null);
      // In memory (one process) the answer is immediate; shared across replicas it is one statement.
      const limit = app.rateLimiter.hit(principal.accessKey, principal.rateLimit);
      return limit instanceof Promise ? limit.then((l) => limited(principal, l)) : limited(principal, limit);
    };
    const limited = (principal: Principal, limit: RateLimitState): Admission => {
      setRateLimitHeaders(headers, limit);
      if (limit.exceeded) {
        throw new Problem('rate-limit-exceeded', 'Too many requests in the last 15 minutes.', undefined, {
          headers: { 'Retry-After': String(limit.reset) },
        });
      }
      checkPrivilege(route.privilege, principal);
      return admitted(principal);
    };
    const admitted = (principal: Principal | null): Admission => {
      if (route.status === 'RUNNING' && app.manager.frozen) {
        throw new Problem('server-frozen', 'The manager is frozen; only read operations are served.');
      }
      const input = parseInput(route, method, rawUrl, queryAt, rawBody, params);
      if (seen) seen.input = input;
      return { principal: principal as Principal, input, rawBody, clientIp, relayed: isRelayed(req) };
    };
    if (!signed) return pass(null);
    const principal = authenticate(req, rawBody, app.keypairs, clientIp);
    return principal instanceof Promise ? principal.then(pass) : pass(principal);
  };
  const body = readBody(req, route.bodyLimit ?? DEFAULT_BODY_LIMIT);
  return body instanceof Promise ? body.then(admitBody) : admitBody(body);
}

/** A POST with X-Method-Override is routed as the named method (CONTRACT §1.3). */
function effectiveMethod(req: IncomingMessage): string {
  const method = req.method ?? 'GET';
  const override = req.headers['x-method-override'];
  if (method === 'POST' && typeof override === 'string' && OVERRIDABLE.has(override.toUpperCase())) {
    return override.toUpperCase();
  }
  return method;
}

function checkPrivilege(required: Privilege, principal: Principal): void {
  const ok =
    required === 'none' ||
    required === 'user' ||
    (required === 'admin' && isAdmin(principal)) ||
    (required === 'superadmin' && isSuperadmin(principal));
  if (!ok) throw new Problem('insufficient-privilege', `This operation needs ${required} privilege.`);
}

function readBody(req: IncomingMessage, limit: number): Buffer | Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    discard(req);
    return Promise.reject(new Problem('payload-too-large', `The request body exceeds ${limit} bytes.`));
  }
  if (req.method === 'GET' && !declared && !req.headers['transfer-encoding']) return EMPTY_BODY;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        discard(req);
        reject(new Problem('payload-too-large', `The request body exceeds ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Lets an oversized upload drain (so the client reads our 413), and cuts it off if it keeps going. */
function discard(req: IncomingMessage): void {
  req.resume();
  const timer = setTimeout(() => req.socket.destroy(), 5_000);
  timer.unref();
  req.on('end', () => clearTimeout(timer));
}

function parseInput(
  route: RouteDef,
  method: string,
  rawUrl: string,
  queryAt: number,
  rawBody: Buffer,
  params: Record<string, string | undefined>,
): unknown {
  let source: Record<string, unknown> = {};
  const bodyCarriesParams = method !== 'GET' && method !== 'HEAD' && rawBody.length > 0;
  if (bodyCarriesParams && route.body !== 'raw') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new Problem('invalid-api-params', 'The request body is not valid JSON.');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Problem('invalid-api-params', 'The request body must be a JSON object.');
    }
    source = parsed as Record<string, unknown>;
  } else if (queryAt >= 0) {
    source = Object.fromEntries(new URLSearchParams(rawUrl.slice(queryAt + 1)));
  }
  // Path parameters name things: no control character, whether or not the route's schema keeps them.
  refuseControlCharacters(params);
  const merged = { ...source, ...params };
  if (!route.input) {
    refuseControlCharacters(merged);
    return merged;
  }
  const result = route.input.safeParse(merged);
  if (!result.success) {
    const data = fieldErrors(result.error);
    const first = Object.entries(data)[0];
    throw new Problem('invalid-api-params', first ? `${first[0]}: ${first[1]}` : 'Invalid parameters.', data);
  }
  refuseControlCharacters(result.data, route.freeText);
  return result.data;
}

export function toProblem(error: unknown, app: App): Problem {
  if (error instanceof Problem) return error;
  if (error instanceof ZodError) return new Problem('invalid-api-params', 'Invalid parameters.', fieldErrors(error));
  const detail = app.settings.debug && error instanceof Error ? error.stack : 'An unexpected error occurred.';
  return new Problem('internal-server-error', detail);
}

/** The headers of every answer, with the anonymous rate limit until a caller is known. */
export function answerHeaders(): Record<string, string> {
  return {
    Server: 'Berth',
    'Content-Language': 'en',
    'X-RateLimit-Limit': ANONYMOUS_LIMIT_TEXT,
    'X-RateLimit-Remaining': ANONYMOUS_LIMIT_TEXT,
    'X-RateLimit-Reset': '0',
    'X-RateLimit-Window': WINDOW_TEXT,
  };
}

function setRateLimitHeaders(headers: Record<string, string>, state: RateLimitState): void {
  const unlimited = state.limit === null;
  headers['X-RateLimit-Limit'] = unlimited ? UNLIMITED_TEXT : String(state.limit);
  headers['X-RateLimit-Remaining'] = unlimited ? UNLIMITED_TEXT : String(state.remaining);
  headers['X-RateLimit-Reset'] = String(state.reset);
}

function sendJson(res: ServerResponse, method: string, status: number, body: unknown, headers: Record<string, string>, relayed: boolean, type = 'application/json'): void {
  const text = answerJson(body, relayed);
  headers['Content-Type'] = type;
  headers['Content-Length'] = String(Buffer.byteLength(text));
  res.writeHead(status, headers);
  res.end(method === 'HEAD' ? undefined : text);
}

function sendRaw(res: ServerResponse, method: string, reply: import('./route').RawReply, headers: Record<string, string>): void {
  Object.assign(headers, reply.headers, { 'Content-Type': reply.contentType });
  if (!(reply.body instanceof Readable)) headers['Content-Length'] = String(Buffer.byteLength(reply.body));
  res.writeHead(reply.status ?? 200, headers);
  if (reply.body instanceof Readable) {
    if (method === 'HEAD') {
      reply.body.destroy();
      res.end();
      return;
    }
    const body = reply.body;
    body.on('error', () => res.destroy());
    // A client that hangs up must not leave the source (a file descriptor, a process) open.
    res.on('close', () => body.destroy());
    body.pipe(res);
    return;
  }
  res.end(method === 'HEAD' ? undefined : reply.body);
}
