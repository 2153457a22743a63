/**
 * The dashboard listener: Next.js as a custom server (so WebSocket upgrades can be relayed later). The
 * backend-for-frontend route handlers reach the manager at BERTH_MANAGER_URL, set here for them.
 */
import http from 'node:http';
import next from 'next';
import type { App } from '../app';

export async function createWebServer(app: App, managerUrl: string, projectDir: string): Promise<http.Server> {
  process.env.BERTH_MANAGER_URL = managerUrl;
  const nextApp = next({ dev: false, dir: projectDir, quiet: true });
  await nextApp.prepare();
  const handle = nextApp.getRequestHandler();
  return http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      app.log.error({ err }, 'dashboard request failed');
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
}
