/**
 * The dashboard listener: Next.js as a custom server, which also relays WebSocket upgrades (./stream-relay). The
 * backend-for-frontend route handlers reach the manager at BERTH_MANAGER_URL, set here for them, and seal the
 * next-auth session cookie with NEXTAUTH_SECRET, generated once per data directory unless the operator sets it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import next from 'next';
import type { Logger } from 'pino';
import type { BerthSettings } from '../config/env';
import { Problem } from '../http/problem';
import { answerClientErrors } from '../http/client-error';
import { sendProblem } from '../http/problem-answer';
import { CLIENT_IP_HEADER } from './headers';
import { pathDecodes, routeToRelay } from './relay-path';
import { createStreamRelay, STREAM_PREFIX } from './stream-relay';

/** Reads `<dataDir>/web-secret`, creating it (mode 0600) on first start. */
export function webSecret(dataDir: string): string {
  const file = path.join(dataDir, 'web-secret');
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = randomBytes(32).toString('base64url');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/** The URL browsers use for this listener; a wildcard bind address is shown as localhost. */
function listenerUrl(server: http.Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/**
 * What the dashboard needs of the process it runs in: where its secret lives, the bind address, a logger. The
 * manager's App is one; the dashboard's worker thread (./thread-entry) builds its own from the settings alone.
 */
export interface WebHost {
  settings: Pick<BerthSettings, 'dataDir' | 'host'>;
  log: Pick<Logger, 'error' | 'info'>;
}

/** The values this module put into the environment, so a second start in one process (tests) replaces them. */
const assigned: { secret?: string; url?: string } = {};

export async function createWebServer(host: WebHost, managerUrl: string, projectDir: string): Promise<http.Server> {
  process.env.BERTH_MANAGER_URL = managerUrl;
  if (!process.env.NEXTAUTH_SECRET || process.env.NEXTAUTH_SECRET === assigned.secret) {
    assigned.secret = process.env.NEXTAUTH_SECRET = webSecret(host.settings.dataDir);
  }
  // An operator behind a TLS proxy sets NEXTAUTH_URL=https://...; then the session cookie is also `Secure`.
  const publicUrlConfigured = Boolean(process.env.NEXTAUTH_URL) && process.env.NEXTAUTH_URL !== assigned.url;
  const nextApp = next({ dev: false, dir: projectDir, quiet: true });
  await nextApp.prepare();
  const handle = nextApp.getRequestHandler();
  const server = http.createServer((req, res) => {
    req.headers[CLIENT_IP_HEADER] = req.socket.remoteAddress ?? '';
    if (req.url?.startsWith('/api/') && !pathDecodes(req.url)) {
      sendProblem(res, new Problem('invalid-api-params', 'The path holds a malformed percent-encoding.'));
      return;
    }
    routeToRelay(req);
    handle(req, res).catch((err: unknown) => {
      host.log.error({ err }, 'dashboard request failed');
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  answerClientErrors(server);
  const relay = createStreamRelay(host.log, managerUrl);
  server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').startsWith(STREAM_PREFIX)) void relay(req, socket, head);
    else socket.destroy();
  });
  server.once('listening', () => {
    if (!publicUrlConfigured) assigned.url = process.env.NEXTAUTH_URL = listenerUrl(server, host.settings.host);
  });
  return server;
}
