/**
 * A real OpenID provider for the single sign-on tests: the certified `oidc-provider` package, in-process on a
 * loopback port, with one confidential client (Berth's dashboard) and the test's accounts. Its development
 * interactions ask for a login (the account's id; any password), consent is taken as given, and the accounts'
 * claims (email, email_verified, name, groups) go into the ID token, as Keycloak's mappers put them there.
 *
 * It listens on 127.0.0.2, a host of its own, so the browser treats it as another site, as a real provider is
 * (cookies apart from the dashboard's on 127.0.0.1, SameSite rules applied on the way back).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { Provider, type KoaContextWithOIDC } from 'oidc-provider';

export interface TestAccount {
  email?: string;
  email_verified?: boolean | string;
  name?: string;
  groups?: string[];
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The accounts by login (the `sub`); a test may change one's claims between logins. */
  accounts: Record<string, TestAccount>;
  /** BERTH_OIDC_* naming this provider, with `extra` variables added. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Registers the dashboard at `webUrl` as the client (callback and post-logout URLs); the provider answers from then on. */
  registerClient(webUrl: string): void;
  /** An ID token with these claims (iss, aud, iat, exp defaulted), signed with the provider's own key or a stranger's. */
  signIdToken(claims: Record<string, unknown>, options?: { signer?: 'provider' | 'stranger' }): Promise<string>;
  /** Stops answering (connections refused), as a provider that is down; resume() brings it back on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const HOST = '127.0.0.2';
const KID = 'test-key-1';

async function signingKey() {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(privateKey)), kid: KID, alg: 'RS256', use: 'sig' } };
}

export async function startOidcProvider(accounts: Record<string, TestAccount>): Promise<TestOidcProvider> {
  const own = await signingKey();
  const stranger = await signingKey();
  const clientId = 'berth-dashboard';
  const clientSecret = randomBytes(24).toString('base64url');
  let handle: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  const server = http.createServer((req, res) => {
    if (handle) handle(req, res);
    else res.writeHead(503).end('no client registered yet');
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${HOST}:${port}`;

  function registerClient(webUrl: string) {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [`${webUrl}/api/auth/callback/oidc`],
          post_logout_redirect_uris: [`${webUrl}/login`],
          response_types: ['code'],
          grant_types: ['authorization_code'],
        },
      ],
      jwks: { keys: [own.jwk] },
      cookies: { keys: [randomBytes(16).toString('hex')] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
      // The scopes' claims in the ID token itself (Berth reads only the ID token).
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
      async findAccount(_ctx: unknown, sub: string) {
        const account = accounts[sub];
        return account && { accountId: sub, claims: async () => ({ sub, ...account }) };
      },
      // Consent is taken as given: the dashboard is the organisation's own (first-party) client.
      async loadExistingGrant(ctx: KoaContextWithOIDC) {
        const { oidc } = ctx;
        const grantId = oidc.result?.consent?.grantId || oidc.session.grantIdFor(oidc.client.clientId);
        if (grantId) return oidc.provider.Grant.find(grantId);
        const grant = new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
        grant.addOIDCScope('openid email profile groups');
        await grant.save();
        return grant;
      },
    });
    handle = provider.callback();
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    env: (extra = {}) => ({
      BERTH_OIDC_ISSUER: issuer,
      BERTH_OIDC_CLIENT_ID: clientId,
      BERTH_OIDC_CLIENT_SECRET: clientSecret,
      BERTH_OIDC_SCOPES: 'openid email profile groups',
      ...extra,
    }),
    registerClient,
    async signIdToken(claims, { signer = 'provider' } = {}) {
      const now = Math.floor(Date.now() / 1000);
      const key: CryptoKey = signer === 'provider' ? own.privateKey : stranger.privateKey;
      return new SignJWT({ iss: issuer, aud: clientId, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
        .sign(key);
    },
    async pause() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    async resume() {
      await new Promise<void>((resolve) => server.listen(port, HOST, resolve));
    },
    async stop() {
      if (!server.listening) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
