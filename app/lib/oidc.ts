/**
 * Server-side only: the dashboard's single sign-on. next-auth's OAuth provider, in its OpenID Connect form (the
 * issuer's discovery document, authorization code flow with PKCE, state and nonce, the ID token checked by
 * openid-client), built from BERTH_OIDC_* at each request, so one build serves a dashboard with or without it.
 *
 * After the provider's answer passes next-auth's checks, the ID token goes to the manager (POST
 * /auth/oidc/authorize), which checks it again, provisions or links the user and answers with the user's keypair.
 * The keys and the ID token (kept for RP-initiated logout) live only in the sealed cookie; the browser learns the
 * user's name and email, nothing else from the provider.
 */
import type { Account, User } from 'next-auth';
import type { OAuthConfig } from 'next-auth/providers/oauth';
import { ApiError } from '@/server/client/client';
import { readOidcSettings, readPasswordLogin, type Environment, type OidcSettings } from '@/server/config/env';
import { wellKnownUrl } from '@/server/auth/oidc-discovery';
import type { ProblemBody } from '@/components/api/problem';
import { managerClient } from './manager';

export const OIDC_PROVIDER_ID = 'oidc';

/** What the login page offers, read at request time: only yes/no and the button's name reach the page. */
export function loginChoices(env: Environment = process.env): { passwordLogin: boolean; sso: { name: string } | null } {
  const oidc = readOidcSettings(env);
  return { passwordLogin: readPasswordLogin(env), sso: oidc ? { name: oidc.name } : null };
}

export function oidcProvider(oidc: OidcSettings): OAuthConfig<Record<string, unknown>> {
  return {
    id: OIDC_PROVIDER_ID,
    name: oidc.name,
    type: 'oauth',
    wellKnown: wellKnownUrl(oidc.issuer),
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    authorization: { params: { scope: oidc.scopes } },
    checks: ['pkce', 'state', 'nonce'],
    idToken: true,
    // A provider that is down fails the sign-in quickly, with a clear message on the login page.
    httpOptions: { timeout: 5_000 },
    // Placeholders until the manager has answered (see completeOidcSignIn): the user is Berth's, not the provider's.
    profile: (claims) => ({ id: String(claims.sub), email: null, name: null, role: 'user', accessKey: '', secretKey: '' }),
  };
}

/** The login page with a problem to show (the JSON that components/auth/LoginForm decodes). */
export function loginErrorPath(problem: ProblemBody): string {
  return `/login?error=${encodeURIComponent(JSON.stringify({ type: problem.type, title: problem.title, detail: problem.detail }))}`;
}

interface OidcAnswer {
  data: { access_key: string; secret_key: string; role: string; status: string; email: string; full_name: string };
}

/**
 * next-auth's signIn callback for the provider's answer: the manager exchanges the ID token for the user's
 * keypair, written onto `user` for the jwt callback. True to go on, or the login page with the refusal.
 */
export async function completeOidcSignIn(user: User, account: Account): Promise<true | string> {
  if (!account.id_token) return loginErrorPath({ title: 'Single sign-on failed', detail: 'The provider sent no ID token.' });
  try {
    const { data } = await managerClient().call<OidcAnswer>('POST', '/auth/oidc/authorize', { body: { id_token: account.id_token }, signed: false });
    // The session names the Berth user (as a password login does), not the provider's subject.
    Object.assign(user, {
      id: data.email,
      email: data.email,
      name: data.full_name || data.email,
      role: data.role,
      accessKey: data.access_key,
      secretKey: data.secret_key,
    });
    return true;
  } catch (err) {
    if (err instanceof ApiError) return loginErrorPath(err.problem);
    console.error('dashboard single sign-on: the manager is unreachable', err instanceof Error ? err.message : err);
    return loginErrorPath({ title: 'Service unavailable.', detail: 'The manager could not be reached. Try again shortly.' });
  }
}
