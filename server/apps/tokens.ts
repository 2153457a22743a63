/**
 * App access: start-service hands out a short-lived, single-use token bound to one route, session and user; the
 * app proxy exchanges it for an app-scoped cookie. Only the token's hash is stored.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { App } from '../app';
import type { AppRoute } from '../db/schema';

export const TOKEN_TTL_MS = 2 * 60 * 1000;
export const COOKIE_TTL_S = 12 * 3600;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export async function issueToken(app: App, route: AppRoute, userId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await app.db
    .insertInto('app_tokens')
    .values({ token_hash: hash(token), route_id: route.id, session_id: route.session_id, user_uuid: userId, expires_at: new Date(Date.now() + TOKEN_TTL_MS) })
    .execute();
  await app.db.deleteFrom('app_tokens').where('expires_at', '<', new Date(Date.now() - TOKEN_TTL_MS)).execute();
  return token;
}

export interface TokenGrant {
  route: AppRoute;
  userId: string;
}

/** The grant behind a valid, unused, unexpired token for this session (and app, when given); null otherwise. */
export async function peekToken(app: App, token: string, sessionId?: string, appName?: string): Promise<TokenGrant | null> {
  const row = await app.db
    .selectFrom('app_tokens as t')
    .innerJoin('app_routes as r', 'r.id', 't.route_id')
    .selectAll('r')
    .select(['t.user_uuid as token_user', 't.expires_at', 't.used_at'])
    .where('t.token_hash', '=', hash(token))
    .executeTakeFirst();
  if (!row || row.used_at || new Date(row.expires_at).getTime() < Date.now()) return null;
  if (sessionId && row.session_id !== sessionId) return null;
  if (appName && row.app !== appName) return null;
  const { token_user, expires_at: _e, used_at: _u, ...route } = row;
  return { route: route as AppRoute, userId: token_user };
}

/** Uses the token up: only the first caller gets the grant. */
export async function consumeToken(app: App, token: string, sessionId?: string, appName?: string): Promise<TokenGrant | null> {
  const grant = await peekToken(app, token, sessionId, appName);
  if (!grant) return null;
  const used = await app.db.updateTable('app_tokens').set({ used_at: new Date() }).where('token_hash', '=', hash(token)).where('used_at', 'is', null).returning('token_hash').executeTakeFirst();
  return used ? grant : null;
}

/** The app proxy's cookie-signing secret, generated once per data directory (mode 0600). */
export function appProxySecret(app: App): Buffer {
  const file = path.join(app.settings.dataDir, 'app-proxy-secret');
  if (!existsSync(file)) {
    mkdirSync(app.settings.dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}

export const cookieName = (routeId: string) => `berth_app_${routeId}`;

export function signCookie(secret: Buffer, routeId: string, userId: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + COOKIE_TTL_S;
  const mac = createHmac('sha256', secret).update(`${routeId}.${userId}.${expires}`).digest('base64url');
  return `${userId}.${expires}.${mac}`;
}

/** The user a cookie was issued to, if it is ours, for this route and unexpired. */
export function verifyCookie(secret: Buffer, routeId: string, value: string | undefined): string | null {
  if (!value) return null;
  const [userId, expires, mac] = value.split('.');
  if (!userId || !expires || !mac || Number(expires) < Date.now() / 1000) return null;
  const expected = createHmac('sha256', secret).update(`${routeId}.${userId}.${expires}`).digest();
  const given = Buffer.from(mac, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected) ? userId : null;
}
