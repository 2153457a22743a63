/** The manager API listener: node:http with keep-alive, running the request pipeline over every route. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from './app';
import { allRoutes } from './api';
import { answerClientErrors } from './http/client-error';
import { createRequestHandler } from './http/pipeline';
import { createUpgradeHandler } from './http/websocket';
import { STORAGE_PREFIX, createStorageTransferHandler } from './storage/transfers/handler';

export interface Listening {
  server: http.Server;
  url: string;
  /**
   * Stops accepting at once; requests in flight get up to graceMs to finish (0: connections are cut now), idle
   * keep-alive connections close right away.
   */
  close(graceMs?: number): Promise<void>;
}

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

export function listen(server: http.Server, port: number, host: string): Promise<Listening> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const { port: actual } = server.address() as AddressInfo;
      resolve({
        server,
        url: `http://${host}:${actual}`,
        close: (graceMs = 0) => new Promise((done) => {
          if (graceMs <= 0) {
            server.close(() => done());
            return server.closeAllConnections();
          }
          // Keep-alive connections go as soon as their request in flight is answered (closed while idle).
          const idle = setInterval(() => server.closeIdleConnections(), 50);
          const cut = setTimeout(() => server.closeAllConnections(), graceMs);
          server.close(() => {
            clearInterval(idle);
            clearTimeout(cut);
            done();
          });
        }),
      });
    });
  });
}
