/**
 * Route cookies whose MAC has checked out, so a busy app costs one HMAC per cookie instead of one per request.
 * Only verified values are kept, each with its own expiry, which is still checked on every use.
 */
const MAX_ENTRIES = 10_000;

export class VerifiedCookies {
  private readonly users = new Map<string, { user: string; expires: number }>();

  constructor(private readonly verify: (routeId: string, value: string) => string | null) {}

  /** The user the cookie was issued to, if it is ours, for this route and unexpired (as `verifyCookie`). */
  user(routeId: string, value: string | undefined): string | null {
    if (!value) return null;
    const key = `${routeId}=${value}`;
    const hit = this.users.get(key);
    if (hit && hit.expires >= Date.now() / 1000) return hit.user;
    this.users.delete(key);
    const user = this.verify(routeId, value);
    if (user) {
      if (this.users.size >= MAX_ENTRIES) this.users.clear();
      this.users.set(key, { user, expires: Number(value.split('.')[1]) });
    }
    return user;
  }
}
