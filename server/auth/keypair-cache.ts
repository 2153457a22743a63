/**
 * Looks up the keypair behind an access key, with the user it belongs to. Signed requests do this every time,
 * so answers are cached briefly; anything that changes a keypair or user calls invalidate().
 */
import type { Db } from '../db';
import type { Principal, UserRole } from './principal';
import { LocalCluster, type Cluster } from '../cluster/notify';

const TTL_MS = 5_000;

export class KeypairCache {
  private readonly entries = new Map<string, { principal: Principal | null; expires: number }>();

  /** Invalidations are announced to every replica (cluster signal `keypairs`). */
  constructor(private readonly db: Db, private readonly cluster: Cluster = new LocalCluster()) {
    cluster.onSignal('keypairs', (accessKey) => this.drop(typeof accessKey === 'string' ? accessKey : undefined));
  }

  /** The cached answer when it is fresh (no promise, no tick: the hot path of every signed request). */
  peek(accessKey: string): Principal | null | undefined {
    const hit = this.entries.get(accessKey);
    return hit && hit.expires > Date.now() ? hit.principal : undefined;
  }

  /** The active keypair of an active user, or null. */
  async get(accessKey: string): Promise<Principal | null> {
    const now = Date.now();
    const hit = this.entries.get(accessKey);
    if (hit && hit.expires > now) return hit.principal;
    const principal = await this.load(accessKey);
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(accessKey, { principal, expires: now + TTL_MS });
    return principal;
  }

  invalidate(accessKey?: string): void {
    this.cluster.signal('keypairs', accessKey ?? null);
    this.drop(accessKey);
  }

  private drop(accessKey?: string): void {
    if (accessKey) this.entries.delete(accessKey);
    else this.entries.clear();
  }

  private async load(accessKey: string): Promise<Principal | null> {
    const row = await this.db
      .selectFrom('keypairs as k')
      .innerJoin('users as u', 'u.uuid', 'k.user_id')
      .select([
        'k.access_key',
        'k.secret_key',
        'k.is_active',
        'k.is_admin',
        'k.rate_limit',
        'k.resource_policy',
        'u.uuid',
        'u.email',
        'u.username',
        'u.role',
        'u.status',
        'u.domain_name',
        'u.allowed_client_ip',
      ])
      .where('k.access_key', '=', accessKey)
      .executeTakeFirst();
    if (!row || !row.is_active || row.status !== 'active') return null;
    return {
      accessKey: row.access_key,
      secretKey: row.secret_key,
      isAdmin: row.is_admin,
      rateLimit: row.rate_limit,
      keypairPolicy: row.resource_policy,
      userId: row.uuid,
      email: row.email,
      username: row.username,
      role: row.role as UserRole,
      status: row.status,
      domainName: row.domain_name,
      allowedClientIp: row.allowed_client_ip,
    };
  }
}
