/**
 * Control characters in API input, refused once for every route by the request pipeline (./pipeline), after the
 * route's schema has made the input what the handler gets:
 * - NUL, and UTF-16 halves without their pair (text no database stores), anywhere: every path parameter, query
 *   value, JSON string and object key, at any depth;
 * - every other control character (C0, DEL, C1) in names, ids, keys and paths: any string or key outside the
 *   fields a route declares as free text (RouteDef.freeText: code, scripts, file contents, templates), where
 *   newlines, tabs and escape sequences are the user's to write.
 */
import { Problem } from './problem';

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const FIELD_SHOWN = 200;

function refuse(where: string, what: string): never {
  const field = where.length > FIELD_SHOWN ? `${where.slice(0, FIELD_SHOWN)}…` : where;
  const message = `must not contain ${what}`;
  throw new Problem('invalid-api-params', `${field}: ${message}`, { [field]: message });
}

function check(text: string, field: string, free: boolean): void {
  if (UNSTORABLE.test(text)) refuse(field, 'NUL characters or unpaired surrogates');
  if (!free && CONTROL.test(text)) refuse(field, 'control characters');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

interface Pending {
  value: unknown;
  /** The field's name path, array positions left out (`config.environ`), as RouteDef.freeText names fields. */
  names: string;
  /** Where the value is, positions included, for the refusal. */
  where: string;
  free: boolean;
}

/**
 * Throws 400 invalid-api-params naming the first field that holds a refused character. `freeText` lists dotted
 * field names whose whole value is free text. Walks without recursion: nesting depth is the client's choice.
 */
export function refuseControlCharacters(input: unknown, freeText: readonly string[] = []): void {
  const stack: Pending[] = [{ value: input, names: '', where: '', free: false }];
  while (stack.length) {
    const { value, names, where, free } = stack.pop()!;
    if (typeof value === 'string') {
      check(value, where || '(body)', free);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, names, where: `${where}[${i}]`, free }));
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        const path = names ? `${names}.${key}` : key;
        const at = where ? `${where}.${key}` : key;
        check(key, at, free);
        stack.push({ value: item, names: path, where: at, free: free || freeText.includes(path) });
      }
    }
  }
}
