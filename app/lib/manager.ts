/**
 * Server-side only: the dashboard's connection to the manager API. Every call goes through the one signing
 * client (server/client/client.ts); this module only decides where the manager is and shares one keep-alive
 * agent between all users' requests.
 */
import { BerthClient, type Credentials, type Transport } from '@/server/client/client';
import { PROBLEM_BASE, PROBLEM_TYPES, type ProblemSlug } from '@/server/http/problem';

const shared = globalThis as typeof globalThis & {
  __berthManagerClient?: { endpoint: string; client: BerthClient };
  /** Set in the dashboard's thread (server/web/thread-entry.ts): the main thread sends its calls (server/web/manager-port.ts). */
  __berthManagerTransport?: Transport;
};

/** The unsigned client for the manager at BERTH_MANAGER_URL (set by server/web/next-server.ts). */
export function managerClient(): BerthClient {
  const endpoint = process.env.BERTH_MANAGER_URL;
  if (!endpoint) throw new Error('BERTH_MANAGER_URL is not set: the dashboard must run inside Berth (npm start).');
  // The same setting as last time: the same client and keep-alive pool, without parsing the URL again.
  const current = shared.__berthManagerClient;
  if (current?.endpoint === endpoint) return current.client;
  current?.client.close();
  shared.__berthManagerClient = { endpoint, client: new BerthClient({ endpoint, transport: shared.__berthManagerTransport }) };
  return shared.__berthManagerClient.client;
}

/** A client that signs with one user's keys. */
export function managerClientFor(credentials: Credentials): BerthClient {
  return managerClient().withCredentials(credentials);
}

/** An application/problem+json answer in the manager's own format, for refusals made by the BFF itself. */
export function problemResponse(slug: ProblemSlug, detail: string, init: { headers?: Record<string, string> } = {}): Response {
  const [status, title] = PROBLEM_TYPES[slug];
  return new Response(JSON.stringify({ type: PROBLEM_BASE + slug, title, detail, msg: detail }), {
    status,
    headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', ...init.headers },
  });
}
