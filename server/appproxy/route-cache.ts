/**
 * App routes by id, cached briefly: the proxy looks one up on every request and must notice removed routes. A route
 * whose host is not this machine or a live agent's address is treated as absent.
 */
import type { App } from '../app';
import type { AppRoute } from '../db/schema';
import { isAppHost } from '../apps/app-hosts';

const TTL_MS = 2_000;

export class RouteCache {
  private readonly entries = new Map<string, { route: AppRoute | null; expires: number }>();

  constructor(private readonly app: App) {}

  /** The cached answer while it is fresh (null: no such route); undefined when the database must be asked. */
  peek(routeId: string): AppRoute | null | undefined {
    const hit = this.entries.get(routeId);
    return hit && hit.expires > Date.now() ? hit.route : undefined;
  }

  async get(routeId: string): Promise<AppRoute | null> {
    const cached = this.peek(routeId);
    if (cached !== undefined) return cached;
    const now = Date.now();
    const row = (await this.app.db.selectFrom('app_routes').selectAll().where('id', '=', routeId).executeTakeFirst()) ?? null;
    const route = row && (await isAppHost(this.app, row.host)) ? row : null;
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(routeId, { route, expires: now + TTL_MS });
    return route;
  }
}
