/** A listener's start and its drain, for every role's server (the manager API, the dashboard, the app proxy). */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  server: http.Server;
  url: string;
  /**
   * Stops accepting at once; requests in flight get up to graceMs to finish (0: connections are cut now), idle
   * keep-alive connections close right away.
   */
  close(graceMs?: number): Promise<void>;
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
