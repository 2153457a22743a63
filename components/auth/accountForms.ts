'use client';
/**
 * The signed-out account calls: they go to the dashboard's own unsigned routes (app/api/auth-extra/), which
 * forward exactly one manager call each; a refusal arrives as the manager's problem.
 */
import { ManagerError, problemFrom } from '@/components/api/problem';

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    cache: 'no-store',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new ManagerError(response.status, await problemFrom(response));
  return (await response.json()) as T;
}

export function changeExpiredPassword(input: { domain: string; username: string; current_password: string; new_password: string }) {
  return post<{ password_changed_at: string | null }>('/api/auth-extra/update-password', input);
}

export function signUp(input: { domain: string; email: string; password: string; full_name?: string }) {
  return post<{ ok: true }>('/api/auth-extra/signup', input);
}
