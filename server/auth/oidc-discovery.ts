/**
 * The OpenID provider's discovery document (<issuer>/.well-known/openid-configuration): the manager reads the key
 * set's address from it to check ID tokens, the dashboard the end-session endpoint for RP-initiated logout. It is
 * fetched with a short timeout (a provider that is down must fail fast, not hang a login) and remembered for a few
 * minutes; failures are not remembered.
 */

export interface OidcMetadata {
  /** The issuer exactly as the provider spells it: the `iss` every ID token must carry. */
  issuer: string;
  jwks_uri: string;
  /** Present when the provider supports RP-initiated logout. */
  end_session_endpoint?: string;
}

/** The provider could not be reached, or answered with something that is not a discovery document. */
export class OidcProviderUnavailable extends Error {}

const REMEMBER_MS = 5 * 60_000;
const TIMEOUT_MS = 5_000;
const remembered = new Map<string, { metadata: OidcMetadata; until: number }>();

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

export function wellKnownUrl(issuer: string): string {
  return `${withoutTrailingSlash(issuer)}/.well-known/openid-configuration`;
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The discovery document of `issuer`, checked: it names the same issuer and a key set. */
export async function discover(issuer: string): Promise<OidcMetadata> {
  const now = Date.now();
  const known = remembered.get(issuer);
  if (known && known.until > now) return known.metadata;
  const url = wellKnownUrl(issuer);
  let body: Record<string, unknown>;
  try {
    const response = await fetch(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = (await response.json()) as Record<string, unknown>;
  } catch (err) {
    throw new OidcProviderUnavailable(`${url}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const jwksUri = httpUrl(body?.jwks_uri);
  if (typeof body?.issuer !== 'string' || withoutTrailingSlash(body.issuer) !== withoutTrailingSlash(issuer) || !jwksUri) {
    throw new OidcProviderUnavailable(`${url}: not the discovery document of ${issuer}`);
  }
  const metadata: OidcMetadata = { issuer: body.issuer, jwks_uri: jwksUri, end_session_endpoint: httpUrl(body.end_session_endpoint) };
  remembered.set(issuer, { metadata, until: now + REMEMBER_MS });
  return metadata;
}
