/**
 * The app proxy listener (BERTH_APP_PORT), on an origin apart from the dashboard. In-session apps and
 * model-service endpoints are routed here by token; until a token maps to an app, every path answers 404.
 */
import http from 'node:http';
import type { App } from '../app';
import { Problem } from '../http/problem';

export function createAppProxyServer(app: App): http.Server {
  return http.createServer((req, res) => {
    if (req.url === '/' || req.url === '/health') {
      res.writeHead(200, { 'Content-Type': 'application/json', Server: 'Berth' }).end(JSON.stringify({ status: 'ok' }));
      return;
    }
    const problem = new Problem('url-not-found', 'No app is published at this address.');
    app.log.debug({ url: req.url }, 'app proxy miss');
    res.writeHead(problem.status, { 'Content-Type': 'application/problem+json', Server: 'Berth' }).end(JSON.stringify(problem.toJSON()));
  });
}
