/**
 * The dashboard's first visitor's requests, made once by Berth itself before it says ready (`npm start` only:
 * server/main.ts). The first render of a Next.js page compiles the renderer, React's server code, MUI's core and
 * emotion into bytecode and type feedback as it runs: a cold /login took 209–214 ms to answer where a warm one
 * takes 20–36 (bench/memory.mjs, 1 Dec 2026). Next already loads every route's modules at start
 * (`preloadEntriesOnStart`); this runs the code the login page shares with every page, so the first person to open
 * the dashboard after a restart does not wait for it, and the memory it leaves (6–8 MiB of V8 heap, kept by every
 * process that has served one page) is part of the idle figure instead of appearing with the first visitor.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

/** What the login page's visitor asks for before signing in: the page, then next-auth's CSRF token and session. */
export const WARM_UP_PATHS = ['/login', '/api/auth/csrf', '/api/auth/session'];

const WARM_UP_TIMEOUT_MS = 10_000;

function get(target: AddressInfo, path: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    // A connection to a wildcard address (0.0.0.0, ::) reaches this machine on Linux.
    const req = http.get({ host: target.address, port: target.port, path, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.once('error', reject);
  });
}

/** Requests WARM_UP_PATHS from the dashboard's listener, one after another, each on a connection of its own that
 * closes with its answer. A failure (an error, a 5xx, no answer within `timeoutMs`) is logged, never thrown. */
export async function warmUpDashboard(server: http.Server, log: Pick<Logger, 'warn'>, timeoutMs = WARM_UP_TIMEOUT_MS): Promise<void> {
  const target = server.address() as AddressInfo;
  for (const path of WARM_UP_PATHS) {
    try {
      const status = await get(target, path, timeoutMs);
      if (status >= 500) log.warn({ path, status }, 'dashboard warm-up request failed');
    } catch (err) {
      log.warn({ err, path }, 'dashboard warm-up request failed');
    }
  }
}
