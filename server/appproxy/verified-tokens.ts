/**
 * Service tokens whose signature has checked out, by service, so a busy model endpoint costs one JWT verification
 * per token instead of one per request (it was a third of the endpoint path's CPU, bench/apps.mjs). Tokens are
 * stateless (nothing revokes one before its expiry), so a verified token stays good until its `exp`, which is
 * still checked on every use. Only verified tokens are kept.
 */
const MAX_ENTRIES = 10_000;

export class VerifiedServiceTokens {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly verify: (token: string, endpointId: string) => Promise<number | null>) {}

  /** Whether the token is a valid, unexpired token of this service (as `verifyServiceToken`). */
  async valid(token: string, endpointId: string): Promise<boolean> {
    const key = `${endpointId} ${token}`;
    const expires = this.expiries.get(key);
    if (expires !== undefined && expires > Date.now() / 1000) return true;
    this.expiries.delete(key);
    const exp = await this.verify(token, endpointId);
    if (exp === null) return false;
    if (this.expiries.size >= MAX_ENTRIES) this.expiries.clear();
    this.expiries.set(key, exp);
    return true;
  }
}
