/**
 * Checks an ID token on the manager's side. The dashboard's next-auth (openid-client) has already checked it during
 * the authorization code flow, state, nonce and PKCE included; the manager does not take the dashboard's word for
 * it and checks again what it can check alone: the signature against the provider's published keys, the issuer,
 * the audience (this client, and `azp` when there are several), expiry, and that it was issued minutes ago, so a
 * token that leaked later cannot be exchanged for keys.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { OidcSettings } from '../config/env';
import { Problem } from '../http/problem';
import { discover, OidcProviderUnavailable } from './oidc-discovery';

/** How old an ID token may be when the dashboard hands it over (it does so within seconds of receiving it). */
const MAX_TOKEN_AGE = '10 minutes';
/** Clock skew tolerated between the provider and the manager, in seconds. */
const CLOCK_TOLERANCE_S = 30;

/** What in the token itself makes it unacceptable (anything else is the provider failing to answer). */
const TOKEN_FAULTS = new Set([
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
]);

/** One key set per address: jose refetches it when a token names a key it has not seen (key rotation). */
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySet(jwksUri: string) {
  let set = keySets.get(jwksUri);
  if (!set) {
    set = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: 5_000 });
    keySets.set(jwksUri, set);
  }
  return set;
}

export function providerUnavailable(oidc: OidcSettings): Problem {
  return new Problem('service-unavailable', `${oidc.name} (the single sign-on provider) could not be reached. Try again shortly, or sign in with a password.`);
}

/** The verified claims of `idToken`; a refused token is a 401 auth-failed, an unreachable provider a 503. */
export async function verifyIdToken(oidc: OidcSettings, idToken: string): Promise<JWTPayload & { iss: string; sub: string }> {
  let metadata;
  try {
    metadata = await discover(oidc.issuer);
  } catch (err) {
    if (err instanceof OidcProviderUnavailable) throw providerUnavailable(oidc);
    throw err;
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keySet(metadata.jwks_uri), {
      issuer: metadata.issuer,
      audience: oidc.clientId,
      maxTokenAge: MAX_TOKEN_AGE,
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ['sub', 'iat', 'exp'],
    }));
  } catch (err) {
    if (err instanceof errors.JOSEError && TOKEN_FAULTS.has(err.code)) {
      throw new Problem('auth-failed', `The ID token was refused: ${err.message}`);
    }
    throw providerUnavailable(oidc);
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (audiences.length > 1 && payload.azp !== oidc.clientId) {
    throw new Problem('auth-failed', 'The ID token was refused: it names several audiences and is not authorized for this client (azp).');
  }
  return payload as JWTPayload & { iss: string; sub: string };
}
