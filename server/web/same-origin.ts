/**
 * The check that a state-changing request to the dashboard comes from the dashboard's own pages: the one check for
 * its route handlers (app/lib/origin.ts, e.g. the /api/manager relay) and its WebSocket relay (./stream-relay).
 * Browsers send `Origin` on every non-GET fetch and on WebSocket handshakes; it must be the origin the request was
 * addressed to (its Host) or the configured public URL (NEXTAUTH_URL), and Fetch Metadata, when sent, must not say
 * cross-site.
 */

/** A request header by its lower-case name. */
export type HeaderReader = (name: string) => string | null | undefined;

function originOf(value: string): string | null {
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

export function isSameOrigin(header: HeaderReader): boolean {
  const site = header('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') return false;
  const origin = header('origin');
  if (!origin || origin === 'null') return false;
  const allowed = new Set<string>();
  const host = header('host');
  const proto = header('x-forwarded-proto')?.split(',')[0]?.trim() || 'http';
  if (host) {
    const own = originOf(`${proto}://${host}`);
    if (own) allowed.add(own);
  }
  const publicUrl = process.env.NEXTAUTH_URL && originOf(process.env.NEXTAUTH_URL);
  if (publicUrl) allowed.add(publicUrl);
  const given = originOf(origin);
  return given !== null && allowed.has(given);
}
