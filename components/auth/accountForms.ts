'use client';
/**
 * The signed-out account calls: they go to the dashboard's own unsigned routes (app/api/auth-extra/), which
 * forward exactly one manager call each; a refusal arrives as the manager's problem.
 */
import { ManagerError, problemFrom } from '@/components/api/problem';

export const MIN_PASSWORD_LENGTH = 8;

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

/** Messages for a new password typed twice; empty when it may be sent. */
export function newPasswordProblems(next: string, repeat: string, current?: string): { next?: string; repeat?: string } {
  const problems: { next?: string; repeat?: string } = {};
  if (next.length < MIN_PASSWORD_LENGTH) problems.next = `At least ${MIN_PASSWORD_LENGTH} characters.`;
  else if (current !== undefined && next === current) problems.next = 'Choose a password different from the expired one.';
  if (repeat !== next) problems.repeat = 'The two passwords do not match.';
  return problems;
}
