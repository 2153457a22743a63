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

/** By the sealed cookie's whole value. */
const remembered = new Map<string, Remembered>();
/**
 * By the request's whole Cookie and Authorization headers: a page sends the same ones with every call, and finding
 * the session cookie in them (next-auth's getToken: parse, look for chunks, join) was ~15 µs of every relayed call.
 * A different header (another cookie added or changed beside the session's) misses here and is looked up by the
 * sealed value as before.
 */
const rememberedHeaders = new Map<string, Remembered>();
let rememberedUnder: string | undefined;

function remember(map: Map<string, Remembered>, key: string, entry: Remembered): void {
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value!);
  map.set(key, entry);
}

/** What a request carries that can hold the session: its Cookie header (and, as next-auth allows, a Bearer token). */
export interface SessionHeaders {
  cookie?: string | null;
  authorization?: string | null;
}

/** The session's keys, or null when there is no session or its cookie is expired, altered or sealed otherwise. */
export async function sessionKeys(headers: SessionHeaders, secret = process.env.NEXTAUTH_SECRET): Promise<Credentials | null> {
  if (!secret) return null;
  if (rememberedUnder !== secret) {
    remembered.clear();
    rememberedHeaders.clear();
    rememberedUnder = secret;
  }
  const now = Date.now();
  const headerKey = `${headers.cookie ?? ''}\n${headers.authorization ?? ''}`;
  const byHeaders = rememberedHeaders.get(headerKey);
  if (byHeaders && byHeaders.until > now) return byHeaders.keys;
  if (byHeaders) rememberedHeaders.delete(headerKey);

  // next-auth finds the cookie (its name depends on NEXTAUTH_URL; a large one comes in chunks) and joins it.
  const plain = { cookie: headers.cookie ?? undefined, authorization: headers.authorization ?? undefined };
  const sealed = await getToken({ req: { headers: plain, cookies: parseCookies(plain.cookie) } as never, secret, raw: true });
  if (!sealed) return null;
  const known = remembered.get(sealed);
  if (known && known.until > now) {
    remember(rememberedHeaders, headerKey, known);
    return known.keys;
  }
  if (known) remembered.delete(sealed);

  const token = await decode({ token: sealed, secret }).catch(() => null);
  if (!token?.accessKey || !token.secretKey) return null;
  const keys = { accessKey: token.accessKey, secretKey: token.secretKey };
  const expires = typeof token.exp === 'number' ? token.exp * 1000 : now;
  const until = Math.min(now + REMEMBER_MS, expires);
  if (until > now && rememberedUnder === secret) {
    const entry = { keys, until };
    remember(remembered, sealed, entry);
    remember(rememberedHeaders, headerKey, entry);
  }
  return keys;
}

/** How many unsealed cookies, and how many requests' headers, are remembered (tests). */
export function rememberedSessions(): { cookies: number; headers: number } {
  return { cookies: remembered.size, headers: rememberedHeaders.size };
}
