/**
 * The app proxy (BERTH_APP_PORT, CONTRACT §11): on an origin apart from the dashboard it serves in-session apps
 * at /app/<route>/. Access starts with a start-service token, exchanged once for a cookie scoped to that route;
 * the target port always comes from the stored route, never from the request; the dashboard's cookies and any
 * Authorization header are never forwarded. HTTP through forward.ts, WebSockets through http-proxy-3, both with one
 * keep-alive agent (per tunneled host, for apps on remote Docker engines); a dead app is a 502.
 */
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import type { App } from '../app';
import type { AppRoute } from '../db/schema';
import { Problem } from '../http/problem';
import { answerClientErrors } from '../http/client-error';
import { rawProblem, sendProblem } from '../http/problem-answer';
import { appProxySecret, consumeToken, cookieName, peekToken, signCookie, verifyCookie, COOKIE_TTL_S } from '../apps/tokens';
import { RouteCache } from './route-cache';
import { VerifiedCookies } from './verified-cookies';
import { forward, upstreamHeaders } from './forward';
import { passThrough, serializeRequestHead, type PassTarget, type RequestHead } from './passthrough';
import { VerifiedServiceTokens } from './verified-tokens';
import { TcpEndpoints } from './tcp-endpoints';
import { TunnelAgents } from './tunnel-agents';
import { appTunnel } from '../apps/app-hosts';
import { forwardedCookies, parseCookies } from '../http/cookies';
import { pickRoute, routeTableOf } from '../services/route-table';
import { tokenFromHeader, verifyServiceToken } from '../services/tokens';
import { noteAppTraffic, touchSession } from '../culling/activity';

const APP_PATH = /^\/app\/([a-f0-9]{24})(\/|$)/;
/** Model services (CONTRACT §13): /service/<endpoint id>[/<path the model server sees>]. */
const SERVICE_PATH = /^\/service\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\/.*)?$/;

/** The request target as a URL; a target that is not one (`//[x`) is the client's mistake, a 400. */
function requestUrl(target: string | undefined): URL {
  try {
    return new URL(target ?? '/', 'http://proxy');
  } catch {
    throw new Problem('invalid-api-params', 'The request target is not a valid URL.');
  }
}

/** Request headers as node:http and the pass-through path both give them (lower-case names). */
type RequestHeaders = { host?: string; cookie?: string; authorization?: string; [name: string]: string | string[] | undefined };

/** The Cookie header the app gets: its own cookies only (../http/cookies). */
function keepAppCookies(headers: RequestHeaders, cookies: Record<string, string>): void {
  const kept = forwardedCookies(cookies);
  if (kept) headers.cookie = kept;
  else delete headers.cookie;
}

/** Every answer the proxy writes itself says so, as nginx's do. */
const SERVER_HEADER = { Server: 'Berth' };

function sendJson(res: http.ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), Server: 'Berth', 'Cache-Control': 'no-store' });
  res.end(text);
}

function refuseUpgrade(socket: Duplex, problem: Problem): void {
  socket.end(rawProblem(problem, SERVER_HEADER));
}

export function createAppProxyServer(app: App): http.Server {
  const secret = appProxySecret(app);
  const routes = new RouteCache(app);
  const serviceRoutes = routeTableOf(app);
  const tcp = new TcpEndpoints(routes, app.settings.host, app.log, (host) => appTunnel(app, host));
  const verified = new VerifiedCookies((routeId, value) => verifyCookie(secret, routeId, value));
  const serviceTokens = new VerifiedServiceTokens((token, endpointId) => verifyServiceToken(secret, token, endpointId));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  // Apps in containers on remote Docker engines: reached through the engine (./tunnel-agents).
  const tunnels = new TunnelAgents(app);
  const proxy = createProxyServer({ agent, ws: true, xfwd: true, proxyTimeout: 0 });
  proxy.on('error', (err, _req, target) => {
    app.log.info({ err: err.message }, 'app proxy: upstream failed');
    (target as Duplex | undefined)?.destroy();
  });
  /** HTTP requests go through forward() (see why there); a failure is a 502: the app, not Berth, is unavailable. */
  const pass = (req: http.IncomingMessage, res: http.ServerResponse, target: { host: string; port: number }) =>
    forward(req, res, target, tunnels.for(target.host, agent), (err) => {
      app.log.info({ err: err.message }, 'app proxy: upstream failed');
      sendProblem(res, new Problem('bad-gateway', 'The app is not answering.'), SERVER_HEADER);
    });

  const publicBase = (req: http.IncomingMessage) => `http://${req.headers.host ?? `${app.settings.host}:${app.settings.appPort}`}`;
  // Wildcard-subdomain mode (BERTH_APP_DOMAIN): every app on its own origin, <route>.<domain>.
  const domain = app.settings.appDomain?.toLowerCase();
  const scheme = app.settings.appProxyUrl ? new URL(app.settings.appProxyUrl).protocol.replace(':', '') : 'http';
  const routeOrigin = (req: http.IncomingMessage, routeId: string) => (domain ? `${scheme}://${routeId}.${domain}` : publicBase(req));
  /** In wildcard mode a route is only served on its own subdomain. */
  const onItsOrigin = (headers: RequestHeaders, routeId: string) => !domain || (headers.host ?? '').toLowerCase().split(':')[0] === `${routeId}.${domain}`;

  /**
   * Checks the route cookie; answers the route and rewrites the request headers, or throws a Problem. Synchronous,
   * so the pass-through path's `decide` admits a request of a cached route without waiting on a promise.
   */
  function admitTo(headers: RequestHeaders, routeId: string, route: AppRoute | null): AppRoute {
    if (!route || !onItsOrigin(headers, routeId)) throw new Problem('url-not-found', 'No app is published at this address.');
    const cookies = parseCookies(headers.cookie);
    const user = verified.user(routeId, cookies[cookieName(routeId)]);
    if (!user || user !== route.user_uuid) throw new Problem('auth-failed', 'Open this app from Berth (start-service) to get access.');
    delete headers.authorization;
    keepAppCookies(headers, cookies);
    return route;
  }

  /**
   * A model service: a live service, a valid token of it unless it is open to the public, and a healthy route
   * chosen by traffic ratio. The caller's Authorization header and Berth's cookies never reach the model server.
   */
  async function admitToService(headers: RequestHeaders, endpointId: string): Promise<{ host: string; port: number }> {
    const table = await serviceRoutes.get(endpointId);
    if (!table) throw new Problem('url-not-found', 'No model service is published at this address.');
    if (!table.openToPublic) {
      const token = tokenFromHeader(headers.authorization);
      if (!token) throw new Problem('auth-failed', 'This service needs a token: Authorization: BackendAI <token> (or Bearer <token>).', undefined, { headers: { 'WWW-Authenticate': 'Bearer' } });
      if (!(await serviceTokens.valid(token, endpointId))) throw new Problem('auth-failed', 'The token is invalid, expired or for another service.');
    }
    delete headers.authorization;
    keepAppCookies(headers, parseCookies(headers.cookie));
    const chosen = pickRoute(table.routes);
    if (!chosen) throw new Problem('service-unavailable', 'The service has no healthy route right now.');
    return { host: chosen.kernel_host, port: chosen.kernel_port };
  }

  async function admit(req: http.IncomingMessage, routeId: string): Promise<AppRoute> {
    const cached = routes.peek(routeId);
    const route = admitTo(req.headers, routeId, cached !== undefined ? cached : await routes.get(routeId));
    noteAppTraffic(route.session_id, req);
    return route;
  }

  /**
   * A TCP app: the token is used up here (there is no auth step to follow) and the answer's URL names the proxy's
   * TCP endpoint for the route, admitting the caller (or `allowed_client_ips`, a comma-separated list).
   */
  async function addTcp(req: http.IncomingMessage, url: URL, token: string, sessionId: string): Promise<{ code: number; url: string }> {
    const grant = await consumeToken(app, token, sessionId, url.searchParams.get('app') ?? undefined);
    if (!grant) throw new Problem('auth-failed', 'The token is invalid, used or expired.');
    const allowed = (url.searchParams.get('allowed_client_ips') ?? '').split(',').map((ip) => ip.trim()).filter(Boolean);
    if (allowed.some((ip) => net.isIP(ip) === 0)) throw new Problem('invalid-api-params', 'allowed_client_ips must be a comma-separated list of IP addresses.');
    const port = await tcp.open(grant.route.id, allowed.length ? allowed : [req.socket.remoteAddress ?? '']);
    const host = new URL(publicBase(req)).hostname;
    return { code: 200, url: `tcp://${host}:${port}` };
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = requestUrl(req.url);
    if (url.pathname === '/' || url.pathname === '/health') return sendJson(res, { status: 'ok' });

    const add = /^\/v2\/proxy\/([^/]+)\/([0-9a-f-]{36})\/add$/.exec(url.pathname);
    if (add) {
      const grant = await peekToken(app, add[1], add[2], url.searchParams.get('app') ?? undefined);
      if (!grant) throw new Problem('auth-failed', 'The token is invalid, used or expired.');
      const protocol = url.searchParams.get('protocol') ?? grant.route.protocol;
      if (protocol === 'tcp') {
        if (grant.route.protocol !== 'tcp') throw new Problem('invalid-api-params', `The app ${grant.route.app} speaks HTTP, not TCP.`);
        return sendJson(res, await addTcp(req, url, add[1], add[2]));
      }
      const auth = new URL(`${routeOrigin(req, grant.route.id)}/v2/proxy/auth`);
      auth.searchParams.set('token', add[1]);
      auth.searchParams.set('session_id', add[2]);
      auth.searchParams.set('app', grant.route.app);
      auth.searchParams.set('protocol', protocol);
      return sendJson(res, { code: 200, url: auth.toString() });
    }

    if (url.pathname === '/v2/proxy/auth') {
      const token = url.searchParams.get('token') ?? '';
      const grant = await consumeToken(app, token, url.searchParams.get('session_id') ?? undefined, url.searchParams.get('app') ?? undefined);
      if (!grant) throw new Problem('auth-failed', 'The token is invalid, used or expired.');
      if (!onItsOrigin(req.headers, grant.route.id)) throw new Problem('url-not-found', 'This app is served on its own subdomain.');
      const path = `/app/${grant.route.id}/`;
      const cookie = `${cookieName(grant.route.id)}=${signCookie(secret, grant.route.id, grant.userId)}; Path=${path}; Max-Age=${COOKIE_TTL_S}; HttpOnly; SameSite=Lax`;
      const redirect = `${routeOrigin(req, grant.route.id)}${path}${(url.searchParams.get('redirect') ?? '').replace(/^\/+/, '')}`;
      if ((req.headers.accept ?? '').includes('application/json')) {
        res.setHeader('Set-Cookie', cookie);
        return sendJson(res, { redirect_url: redirect, reuse: false });
      }
      res.writeHead(302, { Location: redirect, 'Set-Cookie': cookie, 'Cache-Control': 'no-store', Server: 'Berth' });
      res.end();
      return;
    }

    const service = SERVICE_PATH.exec(url.pathname);
    if (service) {
      const target = await admitToService(req.headers, service[1]);
      req.url = `${service[2] ?? '/'}${url.search}`;
      pass(req, res, target);
      return;
    }

    const match = APP_PATH.exec(url.pathname);
    if (!match) throw new Problem('url-not-found', 'No app is published at this address.');
    const route = await admit(req, match[1]);
    pass(req, res, { host: route.host, port: route.host_port });
  }

  /**
   * The pass-through path's admission (./passthrough): an app or model-service request that the full path below
   * would forward, with the same checks and the same upstream headers; null leaves the request to the full path,
   * which also gives every refusal its answer.
   */
  function decide(head: RequestHead, socket: net.Socket): PassTarget | null | Promise<PassTarget | null> {
    let url: URL;
    try {
      url = requestUrl(head.target);
    } catch {
      return null; // the full path answers the 400
    }
    const headers = head.headers;
    const toUpstream = (host: string, port: number, path: string): PassTarget => {
      upstreamHeaders(headers, head.method, socket.remoteAddress);
      return { host, port, head: serializeRequestHead(head.method, path, headers) };
    };
    const service = SERVICE_PATH.exec(url.pathname);
    if (service) {
      return admitToService(headers, service[1]).then(
        (target) => {
          if (tunnels.for(target.host, agent) !== agent) return null;
          server.emit('proxied', 'service');
          return toUpstream(target.host, target.port, `${service[2] ?? '/'}${url.search}`);
        },
        () => null,
      );
    }
    const match = APP_PATH.exec(url.pathname);
    if (!match) return null;
    const cached = routes.peek(match[1]);
    if (cached === undefined) return routes.get(match[1]).then(() => decide(head, socket));
    let route: AppRoute;
    try {
      route = admitTo(headers, match[1], cached);
    } catch {
      return null;
    }
    if (tunnels.for(route.host, agent) !== agent) return null;
    touchSession(route.session_id);
    server.emit('proxied', 'app');
    return toUpstream(route.host, route.host_port, head.target);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const problem = err instanceof Problem ? err : new Problem('internal-server-error');
      if (!(err instanceof Problem)) app.log.error({ err }, 'app proxy failure');
      sendProblem(res, problem, SERVER_HEADER);
    });
  });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    let match: RegExpExecArray | null;
    try {
      match = APP_PATH.exec(requestUrl(req.url).pathname);
    } catch (err) {
      return refuseUpgrade(socket, err as Problem);
    }
    if (!match) return refuseUpgrade(socket, new Problem('url-not-found', 'No app is published at this address.'));
    admit(req, match[1])
      .then((route) => proxy.ws(req, socket, head, { target: { host: route.host, port: route.host_port }, agent: tunnels.for(route.host, agent) }))
      .catch((err: unknown) => refuseUpgrade(socket, err instanceof Problem ? err : new Problem('internal-server-error')));
  });
  passThrough(server, {
    decide,
    badGateway: (err) => {
      app.log.info({ err: err.message }, 'app proxy: upstream failed');
      return rawProblem(new Problem('bad-gateway', 'The app is not answering.'), SERVER_HEADER);
    },
  });
  server.on('close', () => {
    agent.destroy();
    tunnels.closeAll();
    tcp.closeAll();
  });
  answerClientErrors(server, SERVER_HEADER);
  server.keepAliveTimeout = 65_000;
  return server;
}
