/**
 * Server-side only: what a page's server render reads from the manager as the signed-in user, so the HTML it sends
 * already holds the page's first rows instead of the browser asking for them once it has hydrated. Signed with the
 * keys of the sealed session cookie, and marked as relayed like every call of the relay (app/api/manager/route.ts):
 * what is read here ends up in the page, so the manager leaves every secret out of it (server/http/relayed.ts).
 *
 * Best effort: when the manager cannot answer (or refuses, or is slow), the page renders without the data and the
 * browser reads it as before; an error is the browser's hook's to show, a slow manager its skeleton's.
 */
import { headers } from 'next/headers';
import { unstable_serialize, type Key } from 'swr';
import { managerClientFor } from '@/app/lib/manager';
import { RELAYED_HEADER } from '@/server/http/relayed';
import { CLIENT_IP_HEADER } from '@/server/web/headers';
import { sessionKeys } from '@/server/web/session-keys';
import { withTimeout } from '@/server/util/timeout';

/** How long a page's HTML waits for its data before it is sent without it. */
const WAIT_MS = 2_000;

/** The manager's JSON answer to a call as the signed-in user, or undefined when there is none to show. */
export async function managerDataForPage<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T | undefined> {
  const request = await headers();
  const keys = await sessionKeys({ cookie: request.get('cookie'), authorization: request.get('authorization') });
  if (!keys) return undefined;
  const forwarded: Record<string, string> = { [RELAYED_HEADER]: '1' };
  const clientIp = request.get(CLIENT_IP_HEADER);
  if (clientIp) forwarded['X-Forwarded-For'] = clientIp;
  try {
    const answer = await withTimeout(managerClientFor(keys).request(method, path, { body, headers: forwarded }), WAIT_MS);
    return answer.ok ? (answer.json() as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The data of a GraphQL query as the signed-in user, or undefined when there is none to show. */
export async function graphqlForPage<T>(query: string, variables: Record<string, unknown>): Promise<T | undefined> {
  const answer = await managerDataForPage<{ data?: T | null; errors?: unknown[] }>('POST', '/admin/gql', { query, variables });
  return answer?.errors?.length || answer?.data == null ? undefined : answer.data;
}

/**
 * SWR's `fallback` for a page's hooks: `data` under `key` as the hooks' cache names it (and as useServerRendered in
 * components/api/useManager.ts looks it up), or nothing when the read gave none.
 */
export function pageFallback(key: Key, data: unknown): Record<string, unknown> {
  return data === undefined ? {} : { [unstable_serialize(key)]: data };
}
