/**
 * Server-side only: the dashboard's next-auth configuration. A user signs in with domain, email (or username)
 * and password, whose check by the manager's /auth/authorize answers with the user's keypair, or through the
 * organisation's OpenID Connect provider (./oidc). Either way the keypair lives only in the encrypted, httpOnly
 * JWT cookie. The session object the browser can read holds the name, email and role, never keys.
 */
import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import type { NextRequest } from 'next/server';
import { ApiError, type Credentials } from '@/server/client/client';
import type { ProblemBody } from '@/components/api/problem';
import { readOidcSettings, readPasswordLogin, type Environment } from '@/server/config/env';
import { safeCallbackUrl } from '@/server/web/redirects';
import { sessionKeys } from '@/server/web/session-keys';
import { managerClient } from './manager';
import { completeOidcSignIn, OIDC_PROVIDER_ID, oidcProvider } from './oidc';

declare module 'next-auth' {
  interface Session {
    user: { email: string | null; name: string | null };
    role: string;
  }
  interface User {
    id: string;
    email?: string | null;
    name?: string | null;
    role: string;
    accessKey: string;
    secretKey: string;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    role?: string;
    accessKey?: string;
    secretKey?: string;
    /** A single sign-on session's ID token, the `id_token_hint` of RP-initiated logout (app/api/auth-extra/logout). */
    idToken?: string;
  }
}

export const DEFAULT_DOMAIN = 'default';
/** The manager's keys are re-checked on every relayed request; the cookie itself lasts a working day. */
const SESSION_MAX_AGE_S = 12 * 60 * 60;

interface AuthorizeAnswer {
  data: { access_key: string; secret_key: string; role: string; status: string };
}

/**
 * A failed login travels to the login page as next-auth's `error` string; it carries the manager's problem
 * (title and detail) as JSON, decoded by components/auth/LoginForm.
 */
function loginFailure(problem: ProblemBody): Error {
  return new Error(JSON.stringify({ type: problem.type, title: problem.title, detail: problem.detail }));
}

async function authorize(credentials: Record<string, string> | undefined) {
  const domain = credentials?.domain?.trim() || DEFAULT_DOMAIN;
  const username = credentials?.username?.trim() ?? '';
  const password = credentials?.password ?? '';
  if (!username || !password) {
    throw loginFailure({ title: 'Missing credentials', detail: 'Enter your email (or username) and password.' });
  }
  let answer: AuthorizeAnswer;
  try {
    answer = await managerClient().call<AuthorizeAnswer>('POST', '/auth/authorize', {
      body: { type: 'keypair', domain, username, password },
      signed: false,
    });
  } catch (err) {
    if (err instanceof ApiError) throw loginFailure(err.problem);
    console.error('dashboard login: the manager is unreachable', err instanceof Error ? err.message : err);
    throw loginFailure({ title: 'Service unavailable.', detail: 'The manager could not be reached. Try again shortly.' });
  }
  const { access_key: accessKey, secret_key: secretKey, role } = answer.data;
  const email = username.includes('@') ? username : null;
  return { id: `${domain}/${username}`, email, name: username, role, accessKey, secretKey };
}

const passwordProvider = CredentialsProvider({
  name: 'Berth',
  credentials: {
    domain: { label: 'Domain', type: 'text' },
    username: { label: 'Email or username', type: 'text' },
    password: { label: 'Password', type: 'password' },
  },
  authorize,
});

/**
 * What every use shares. Reading a session (getServerSession) needs no provider; the sign-in endpoints get theirs
 * from authOptionsForRequest, built from the environment at each request.
 */
export const authOptions: NextAuthOptions = {
  session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
  jwt: { maxAge: SESSION_MAX_AGE_S },
  pages: { signIn: '/login', error: '/login' },
  providers: [],
  callbacks: {
    async signIn({ user, account }) {
      if (account?.provider === OIDC_PROVIDER_ID) return completeOidcSignIn(user, account);
      return true;
    },
    jwt({ token, user, account }) {
      if (user) {
        token.role = user.role;
        token.accessKey = user.accessKey;
        token.secretKey = user.secretKey;
        if (account?.provider === OIDC_PROVIDER_ID && account.id_token) token.idToken = account.id_token;
      }
      return token;
    },
    // Only what the pages show: the keys and the ID token stay in the sealed cookie, out of reach of browser JavaScript.
    session({ session, token }) {
      return {
        expires: session.expires,
        user: { email: token.email ?? null, name: token.name ?? null },
        role: token.role ?? 'user',
      };
    },
    // No open redirect: a callbackUrl on another origin becomes the dashboard's home page.
    redirect({ url, baseUrl }) {
      return safeCallbackUrl(url, baseUrl);
    },
  },
};

/** The options of the next-auth endpoints: the password form unless BERTH_PASSWORD_LOGIN=false, and single sign-on when configured. */
export function authOptionsForRequest(env: Environment = process.env): NextAuthOptions {
  const oidc = readOidcSettings(env);
  const providers = [...(readPasswordLogin(env) ? [passwordProvider] : []), ...(oidc ? [oidcProvider(oidc)] : [])];
  return { ...authOptions, providers };
}

/** The signed-in user's manager keys, read from the sealed session cookie of a route handler's request. */
export function keysFromRequest(req: NextRequest): Promise<Credentials | null> {
  return sessionKeys({ cookie: req.headers.get('cookie'), authorization: req.headers.get('authorization') });
}
