/** Optional password expiry: the config key `auth/max_password_age` holds a duration (e.g. `90d`). */
import type { App } from '../app';
import { parseDuration } from '../util/duration';

export const MAX_PASSWORD_AGE_KEY = 'auth/max_password_age';

export async function maxPasswordAgeSeconds(app: App): Promise<number | null> {
  const raw = await app.config.get(MAX_PASSWORD_AGE_KEY);
  const seconds = raw ? parseDuration(raw) : null;
  return seconds && seconds > 0 ? seconds : null;
}

export async function passwordExpiry(app: App, changedAt: Date) {
  const maxAgeSeconds = await maxPasswordAgeSeconds(app);
  if (maxAgeSeconds === null) return null;
  const expiresAt = new Date(changedAt.getTime() + maxAgeSeconds * 1000);
  return { expired: expiresAt.getTime() < Date.now(), expiresAt, maxAgeSeconds };
}
