/**
 * POST /api/auth-extra/logout — the dashboard's sign-out, submitted as a plain form (a navigation, not a fetch):
 * the session cookie is cleared and the browser is sent, with a 303, to the login page, or for a single sign-on
 * session to the provider's end-session endpoint when it advertises one (RP-initiated logout), which returns it to
 * the login page. The ID token travels in that redirect only; no page script ever sees it.
 */
import type { NextRequest } from 'next/server';
import { getToken } from 'next-auth/jwt';
import { problemResponse } from '@/app/lib/manager';
import { isSameOrigin } from '@/app/lib/origin';
import { readOidcSettings } from '@/server/config/env';
import { discover } from '@/server/auth/oidc-discovery';
import { clearedSessionCookies, endSessionUrl } from '@/server/web/logout';

export async function POST(req: NextRequest): Promise<Response> {
  if (!isSameOrigin(req)) return problemResponse('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.');
  const publicUrl = process.env.NEXTAUTH_URL || req.nextUrl.origin;
  const loginPage = new URL('/login', publicUrl).href;
  let location = loginPage;
  const token = await getToken({ req, secret: process.env.NEXTAUTH_SECRET }).catch(() => null);
  const oidc = readOidcSettings();
  if (token?.idToken && oidc) {
    try {
      const { end_session_endpoint: endpoint } = await discover(oidc.issuer);
      if (endpoint) location = endSessionUrl(endpoint, { idToken: token.idToken, clientId: oidc.clientId, postLogoutRedirect: loginPage });
    } catch (err) {
      // The provider is down: the dashboard session still ends here.
      console.error('dashboard logout: the single sign-on provider could not be reached', err instanceof Error ? err.message : err);
    }
  }
  const headers = new Headers({ Location: location, 'Cache-Control': 'no-store' });
  for (const cookie of clearedSessionCookies(req.headers.get('cookie'), publicUrl)) headers.append('Set-Cookie', cookie);
  return new Response(null, { status: 303, headers });
}
