/** `envs` and `arguments` of start-service arrive as JSON-encoded strings (CONTRACT §11.1). */
import { badRequest } from '../http/problem';

export function parseJsonMap(text: string | undefined | null, field: string): Record<string, unknown> {
  if (text === undefined || text === null || text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(`${field} must be a JSON object encoded as a string.`, { [field]: 'not JSON' });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`${field} must be a JSON object.`, { [field]: 'not an object' });
  for (const [key, v] of Object.entries(value)) {
    const ok = v === null || typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
    if (!ok) throw badRequest(`${field}.${key} must be null, a string or a list of strings.`, { [`${field}.${key}`]: 'bad value' });
  }
  return value as Record<string, unknown>;
}
