/**
 * The one spelling of a path the dashboard relays to the manager. The browser may percent-encode any character of
 * a path, so anything decided about a path (and the manager's routing itself) must see it decoded: each segment
 * is decoded once and written again with encodeURIComponent, so `/admin/%67ql` is relayed as `/admin/gql`. A path
 * that cannot mean one thing is refused: a segment that does not decode, one holding an encoded `/` or `\`
 * (`%2F`), one still percent-encoded after decoding (double encoding, `%252F`), a `.` or `..` segment however
 * spelled, or a control character.
 */
import type { IncomingMessage } from 'node:http';
import { RELAY_PATH_HEADER } from './headers';

/** Where the browser calls the relay; the manager's path follows it. */
const RELAY_PREFIX = '/api/manager';
const DOT_SEGMENTS = new Set(['.', '..']);
const STILL_ENCODED = /%[0-9a-fA-F]{2}/;
const FORBIDDEN = /[/\\\u0000-\u001f\u007f]/;

export type RelayPath = { path: string } | { refused: string };

/**
 * Whether the path of a request line (query left out) percent-decodes. The custom server asks before Next routes
 * an /api/ request: Next answers a malformed one with a bare 500.
 */
export function pathDecodes(url: string): boolean {
  const queryAt = url.indexOf('?');
  try {
    decodeURIComponent(queryAt < 0 ? url : url.slice(0, queryAt));
    return true;
  } catch {
    return false;
  }
}

/**
 * Gives the relay's calls to its route, one static route (app/api/manager/route.ts) rather than a catch-all: for a
 * dynamic route Next builds the route's named pattern again on every request (~0.1 ms of its per-request work on
 * the bench machine, where the relay's budget is a quarter over its floor). So /api/manager/<path>?<query> reaches
 * Next as /api/manager?<query>, with <path> (as the URL parser spells it, as Next's own parsing did: dot segments
 * resolved, still percent-encoded) in RELAY_PATH_HEADER. Every other request has that header removed: it is never
 * the browser's.
 */
export function routeToRelay(req: IncomingMessage): void {
  delete req.headers[RELAY_PATH_HEADER];
  const url = req.url ?? '/';
  if (!url.startsWith(RELAY_PREFIX + '/')) return;
  const { pathname, search } = new URL(url, 'http://relay');
  if (!pathname.startsWith(RELAY_PREFIX + '/')) return;
  req.headers[RELAY_PATH_HEADER] = pathname.slice(RELAY_PREFIX.length);
  req.url = RELAY_PREFIX + search;
}

/** `raw` is the manager's path as the browser sent it (after the relay's prefix), still percent-encoded. */
export function canonicalRelayPath(raw: string): RelayPath {
  const segments = (raw || '/').split('/');
  const canonical: string[] = [];
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { refused: 'The path holds a malformed percent-encoding.' };
    }
    if (FORBIDDEN.test(decoded)) return { refused: 'The path holds an encoded separator or a control character.' };
    if (STILL_ENCODED.test(decoded)) return { refused: 'The path is percent-encoded twice.' };
    if (DOT_SEGMENTS.has(decoded)) return { refused: 'The path holds a "." or ".." segment.' };
    canonical.push(encodeURIComponent(decoded));
  }
  const path = canonical.join('/');
  return { path: path.startsWith('/') ? path : `/${path}` };
}
