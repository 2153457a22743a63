'use client';
/**
 * Data access for pages: every call goes to the dashboard's own /api/manager/... relay, which signs it for the
 * manager server-side. Hooks per area (components/<area>/) build on useManager and managerSend.
 */
import useSWR, { unstable_serialize, useSWRConfig, type Key, type SWRConfiguration, type SWRResponse } from 'swr';
import { ManagerError, problemFrom } from './problem';

export const RELAY_PREFIX = '/api/manager';

/** Calls the manager through the relay; `path` is the manager's path with its query, e.g. `/auth/role`. */
export async function managerFetch<T = unknown>(path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  const response = await fetch(RELAY_PREFIX + path, { credentials: 'same-origin', cache: 'no-store', ...init, headers });
  if (!response.ok) throw new ManagerError(response.status, await problemFrom(response));
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
}

/** A state-changing call with a JSON body. */
export function managerSend<T = unknown>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return managerFetch<T>(path, {
    method,
    headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Reads a manager resource with SWR; `null` skips the request. */
export function useManager<T>(path: string | null, config?: SWRConfiguration<T, ManagerError>): SWRResponse<T, ManagerError> {
  return useSWR<T, ManagerError>(path, (key: string) => managerFetch<T>(key), config);
}

/**
 * Whether `key`'s data came with the page from its server render (app/lib/page-data.ts, handed over as SWR's
 * fallback) and nothing has read it since: the hook then has no reason to read it again as it mounts.
 */
export function useServerRendered(key: Key): boolean {
  const { cache, fallback } = useSWRConfig();
  const serialized = unstable_serialize(key);
  return fallback[serialized] !== undefined && cache.get(serialized) === undefined;
}
