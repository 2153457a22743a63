'use client';
/**
 * One user's keypairs through the dashboard's own /api/admin/keypairs route, which masks access keys: the page
 * sees an opaque id and a hint such as `AK…WXYZ`, never a key.
 */
import useSWR, { mutate } from 'swr';
import { ManagerError, problemFrom } from '@/components/api/problem';
import type { MaskedKeypair } from './keypairTypes';

export type { MaskedKeypair };

const ROUTE = '/api/admin/keypairs';

async function call<T>(url: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set('Accept', 'application/json');
  if (init.body) headers.set('Content-Type', 'application/json');
  const response = await fetch(url, { credentials: 'same-origin', cache: 'no-store', ...init, headers });
  if (!response.ok) throw new ManagerError(response.status, await problemFrom(response));
  return (await response.json()) as T;
}

function keyFor(email: string): string {
  return `${ROUTE}?${new URLSearchParams({ email })}`;
}

export function useKeypairs(email: string) {
  return useSWR<{ keypairs: MaskedKeypair[] }, ManagerError>(keyFor(email), (url: string) => call<{ keypairs: MaskedKeypair[] }>(url));
}

export async function createKeypair(email: string, input: { is_admin: boolean; rate_limit: number | null }): Promise<MaskedKeypair> {
  const answer = await call<{ keypair: MaskedKeypair }>(ROUTE, { method: 'POST', body: JSON.stringify({ email, ...input }) });
  await mutate(keyFor(email));
  return answer.keypair;
}

export async function modifyKeypair(email: string, id: string, props: { is_active?: boolean; is_admin?: boolean; rate_limit?: number | null; resource_policy?: string }): Promise<void> {
  await call(ROUTE, { method: 'PATCH', body: JSON.stringify({ email, id, ...props }) });
  await mutate(keyFor(email));
}
