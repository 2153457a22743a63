/** The manager API listener: node:http with keep-alive, running the request pipeline over every route. */
import http from 'node:http';
import type { App } from './app';
import { allRoutes } from './api';
import { answerClientErrors } from './http/client-error';
import { createRequestHandler } from './http/pipeline';
import { createUpgradeHandler } from './http/websocket';
import { STORAGE_PREFIX, createStorageTransferHandler } from './storage/transfers/handler';

export function createManagerServer(app: App): http.Server {
  const routes = allRoutes();
  const handler = createRequestHandler(app, routes);
  const storage = createStorageTransferHandler(app);
  const server = http.createServer({ keepAlive: true, requestTimeout: 0 }, (req, res) => {
    // Storage transfers stream their bodies and are authorized by their token: outside the signed pipeline.
    const serve = req.url?.startsWith(STORAGE_PREFIX) ? storage : handler;
    serve(req, res).catch((err) => {
      app.log.error({ err }, 'unhandled request error');
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.on('upgrade', createUpgradeHandler(app, routes));
  answerClientErrors(server);
  server.keepAliveTimeout = 65_000;
  return server;
}
