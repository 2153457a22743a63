/**
 * Zod building blocks for API inputs. Query strings carry everything as text, so booleans, integers and lists
 * accept their text forms too (CONTRACT §1.2: a list is a JSON array string, or comma-separated).
 */
import { z } from 'zod';

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export const bool = () =>
  z.preprocess((v) => {
    if (typeof v === 'string') {
      const lower = v.trim().toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
    }
    return v;
  }, z.boolean());

export const int = () =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), z.number().int());

export const list = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    const text = v.trim();
    if (text.startsWith('[')) {
      try {
        return JSON.parse(text);
      } catch {
        return v;
      }
    }
    return text === '' ? [] : text.split(',').map((s) => s.trim());
  }, z.array(item));

export const uuid = () =>
  z.string().regex(/^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/, 'must be a UUID');

/** Turns a zod error into CONTRACT §6's `data = {field: message}`. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join('.') : '(body)';
    out[key] ??= issue.message;
  }
  return out;
}

/**
 * Renames every accepted alias to its canonical key (the first spelling given wins): Backend.AI clients spell many
 * inputs several ways (`groupName`, `group_name`, `group`).
 */
export function fold(aliases: Record<string, string[]>, value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [canonical, others] of Object.entries(aliases)) {
    for (const alias of others) {
      if (out[canonical] === undefined && out[alias] !== undefined) out[canonical] = out[alias];
      delete out[alias];
    }
  }
  return out;
}
