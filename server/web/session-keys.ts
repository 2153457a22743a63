/**
 * The signed-in user's manager keys, read from the sealed next-auth session cookie: the one implementation for the
 * dashboard's route handlers (app/lib/auth.ts keysFromRequest, e.g. the /api/manager relay) and its WebSocket relay
 * (./stream-relay). Next bundles the route handlers apart from the custom server, so each of the two keeps a cache
 * of its own; the code is this module in both.
 *
 * Unsealing a cookie (next-auth derives the key with HKDF, then decrypts the JWE) was the largest cost of a relayed
 * request after Next's own pipeline, and a page sends the same cookie with every call. So each unsealed cookie is
 * remembered, keyed by its whole value (a different or altered cookie is a different key: it is unsealed, and
 * refused if it does not decrypt), for at most a minute and never past the cookie's own expiry, a bounded number
 * of them, and only under the secret that unsealed it. Refused cookies are not remembered.
 */
import { decode, getToken } from 'next-auth/jwt';
import type { Credentials } from '../client/client';
import { parseCookies } from '../http/cookies';

/** Enough for every browser signed in to one dashboard; past it the oldest entry goes. */
export const MAX_REMEMBERED = 1000;
/** An unsealed cookie is reused this long at most. */
export const REMEMBER_MS = 60_000;

interface Remembered {
  keys: Credentials;
  /** Epoch ms after which the entry is not used: its time of remembering + REMEMBER_MS, or the cookie's expiry. */
  until: number;
}

const remembered = new Map<string, Remembered>();
let rememberedUnder: string | undefined;

/** What a request carries that can hold the session: its Cookie header (and, as next-auth allows, a Bearer token). */
export interface SessionHeaders {
  cookie?: string | null;
  authorization?: string | null;
}

/** The session's keys, or null when there is no session or its cookie is expired, altered or sealed otherwise. */
export async function sessionKeys(headers: SessionHeaders, secret = process.env.NEXTAUTH_SECRET): Promise<Credentials | null> {
  if (!secret) return null;
  // next-auth finds the cookie (its name depends on NEXTAUTH_URL; a large one comes in chunks) and joins it.
  const plain = { cookie: headers.cookie ?? undefined, authorization: headers.authorization ?? undefined };
  const sealed = await getToken({ req: { headers: plain, cookies: parseCookies(plain.cookie) } as never, secret, raw: true });
  if (!sealed) return null;
  if (rememberedUnder !== secret) {
    remembered.clear();
    rememberedUnder = secret;
  }
  const now = Date.now();
  const known = remembered.get(sealed);
  if (known && known.until > now) return known.keys;
  if (known) remembered.delete(sealed);

  const token = await decode({ token: sealed, secret }).catch(() => null);
  if (!token?.accessKey || !token.secretKey) return null;
  const keys = { accessKey: token.accessKey, secretKey: token.secretKey };
  const expires = typeof token.exp === 'number' ? token.exp * 1000 : now;
  const until = Math.min(now + REMEMBER_MS, expires);
  if (until > now && rememberedUnder === secret) {
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(sealed, { keys, until });
  }
  return keys;
}

/** How many unsealed cookies are remembered (tests). */
export function rememberedSessions(): number {
  return remembered.size;
}
