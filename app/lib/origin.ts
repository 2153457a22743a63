/**
 * Server-side only: the check that a state-changing request to the dashboard comes from the dashboard's own
 * pages. Browsers send `Origin` on every non-GET fetch; it must be the origin the request was addressed to (its
 * Host) or the configured public URL (NEXTAUTH_URL), and Fetch Metadata, when sent, must not say cross-site.
 */
import type { NextRequest } from 'next/server';

function originOf(value: string): string | null {
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

export function isSameOrigin(req: NextRequest): boolean {
  const site = req.headers.get('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') return false;
  const origin = req.headers.get('origin');
  if (!origin || origin === 'null') return false;
  const allowed = new Set<string>();
  const host = req.headers.get('host');
  const proto = req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() || 'http';
  if (host) {
    const own = originOf(`${proto}://${host}`);
    if (own) allowed.add(own);
  }
  const publicUrl = process.env.NEXTAUTH_URL && originOf(process.env.NEXTAUTH_URL);
  if (publicUrl) allowed.add(publicUrl);
  const given = originOf(origin);
  return given !== null && allowed.has(given);
}
