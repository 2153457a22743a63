/**
 * Raw access to the configuration store (`/config/get|set|delete`). Prefix reads and deletes use the store's
 * plain string-prefix matching, as the spec requires, so `some/key1` also reaches `some/key12`.
 */
import type { App } from '../app';
import { badRequest } from '../http/problem';
import type { ConfigTree } from './store';

export async function readConfig(app: App, key: string, prefix: boolean): Promise<{ result: string | ConfigTree | null }> {
  return { result: prefix ? await app.config.getPrefix(key) : await app.config.get(key) };
}

/** A string is stored at `key`; an object is stored flattened under it (`{a:{b:"1"}}` → `key/a/b`). */
export async function writeConfig(app: App, key: string, value: string | Record<string, unknown>): Promise<{ result: 'ok' }> {
  if (typeof value === 'string') {
    await app.config.set(key, value);
  } else {
    checkStorable(value, key);
    await app.config.setTree(key, value);
  }
  return { result: 'ok' };
}

export async function deleteConfig(app: App, key: string, prefix: boolean): Promise<{ result: 'ok' }> {
  if (prefix) await app.config.deletePrefix(key);
  else await app.config.delete(key);
  return { result: 'ok' };
}

/** Longest key the store takes (its primary-key index cannot hold arbitrarily long text). */
export const MAX_KEY_LENGTH = 1024;
const MAX_DEPTH = 32;

/**
 * Refuses a nested value the store could not hold, with a 400 rather than a database error: NUL characters
 * (PostgreSQL text cannot hold them), flattened keys past MAX_KEY_LENGTH, or absurd nesting.
 */
function checkStorable(node: Record<string, unknown>, key: string, depth = 1): void {
  if (depth > MAX_DEPTH) throw badRequest(`value: nested deeper than ${MAX_DEPTH} levels`, { value: `nested deeper than ${MAX_DEPTH} levels` });
  for (const [k, v] of Object.entries(node)) {
    const full = k === '' ? key : `${key}/${k}`;
    if (full.length > MAX_KEY_LENGTH) throw badRequest(`value: a flattened key is longer than ${MAX_KEY_LENGTH} characters`, { value: 'key too long' });
    if (full.includes('\0')) throw badRequest('value: keys must not contain NUL characters', { value: 'must not contain NUL characters' });
    if (v !== null && typeof v === 'object') checkStorable(v as Record<string, unknown>, full, depth + 1);
    else if (String(v).includes('\0')) throw badRequest('value: values must not contain NUL characters', { value: 'must not contain NUL characters' });
  }
}
