/**
 * Login through single sign-on (POST /auth/oidc/authorize): the dashboard, having completed the authorization code
 * flow, hands over the ID token; the manager checks it itself, provisions or links the user, and answers with the
 * user's keypair exactly as a password login does, for the dashboard's sealed session.
 */
import type { App } from '../app';
import { Problem } from '../http/problem';
import { verifyIdToken } from '../auth/oidc-id-token';
import { activeKeypair } from './login';
import { identityFromClaims, provisionOidcUser } from './oidc-provision';

export async function oidcLogin(app: App, input: { id_token: string }) {
  const { oidc } = app.settings;
  if (!oidc) throw new Problem('generic-forbidden', 'Single sign-on is not configured on this server (BERTH_OIDC_ISSUER).');
  const claims = await verifyIdToken(oidc, input.id_token);
  const user = await provisionOidcUser(app, oidc, identityFromClaims(claims, oidc));
  const keypair = await activeKeypair(app.db, user);
  return {
    access_key: keypair.access_key,
    secret_key: keypair.secret_key,
    role: user.role,
    status: user.status,
    email: user.email,
    full_name: user.full_name,
  };
}
