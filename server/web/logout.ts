/**
 * The dashboard's logout (app/api/auth-extra/logout): the session cookie is cleared, and a session that came from
 * single sign-on continues to the provider's end-session endpoint (OpenID Connect RP-Initiated Logout) when the
 * provider advertises one, which returns the browser to the login page. That redirect carries the ID token as
 * `id_token_hint`, so it is made by the server as a 303, never read by page scripts.
 */
import { parseCookies } from '../http/cookies';

/** next-auth's session cookie: `__Secure-` prefixed when the public URL is https (as next-auth names it). */
export function sessionCookieName(publicUrl: string): string {
  return `${publicUrl.startsWith('https://') ? '__Secure-' : ''}next-auth.session-token`;
}

/** Set-Cookie values that delete the session cookie and every chunk of it (`<name>.0`, `<name>.1`, ...) the request carries. */
export function clearedSessionCookies(cookieHeader: string | null | undefined, publicUrl: string): string[] {
  const name = sessionCookieName(publicUrl);
  const secure = publicUrl.startsWith('https://') ? '; Secure' : '';
  const present = Object.keys(parseCookies(cookieHeader ?? undefined)).filter((c) => c === name || (c.startsWith(`${name}.`) && /^\d+$/.test(c.slice(name.length + 1))));
  const names = present.length ? present : [name];
  return names.map((c) => `${c}=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${secure}`);
}

/** The provider's end-session URL for this session, returning to `postLogoutRedirect` afterwards. */
export function endSessionUrl(endpoint: string, params: { idToken: string; clientId: string; postLogoutRedirect: string }): string {
  const url = new URL(endpoint);
  url.searchParams.set('id_token_hint', params.idToken);
  url.searchParams.set('client_id', params.clientId);
  url.searchParams.set('post_logout_redirect_uri', params.postLogoutRedirect);
  return url.href;
}
