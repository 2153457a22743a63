/**
 * The healthy routes of each service as the app proxy sees them (CONTRACT §13:
 * `[{session_id, kernel_host, kernel_port, traffic_ratio}]`), cached briefly and dropped at once when the scaler,
 * a health change or POST /services/{id}/sync says the table changed. The proxy picks a route in proportion to
 * `traffic_ratio`.
 */
import type { App } from '../app';
import { isAppHost, THIS_MACHINE } from '../apps/app-hosts';

const TTL_MS = 2_000;

export interface ServiceRoute {
  route_id: string;
  session_id: string;
  kernel_host: string;
  kernel_port: number;
  traffic_ratio: number;
}

export interface ServiceTable {
  endpointId: string;
  openToPublic: boolean;
  routes: ServiceRoute[];
}

export class ServiceRouteTable {
  private readonly entries = new Map<string, { table: ServiceTable | null; expires: number }>();

  /** Changes are announced to every replica (cluster signal `service-routes`): the scaler runs on one of them. */
  constructor(private readonly app: App) {
    app.cluster.onSignal('service-routes', (endpointId) => this.drop(typeof endpointId === 'string' ? endpointId : undefined));
  }

  invalidate(endpointId?: string): void {
    this.app.cluster.signal('service-routes', endpointId ?? null);
    this.drop(endpointId);
  }

  private drop(endpointId?: string): void {
    if (endpointId) this.entries.delete(endpointId);
    else this.entries.clear();
  }

  /** The live service and its healthy routes; null when there is no such live service. */
  async get(endpointId: string): Promise<ServiceTable | null> {
    const hit = this.entries.get(endpointId);
    if (hit && hit.expires > Date.now()) return hit.table;
    const now = Date.now();
    const endpoint = await this.app.db.selectFrom('endpoints').select(['id', 'open_to_public']).where('id', '=', endpointId).where('lifecycle_stage', '=', 'created').executeTakeFirst();
    let table: ServiceTable | null = null;
    if (endpoint) {
      const rows = await this.app.db
        .selectFrom('routings')
        // The model server's app route says which node it listens on.
        .leftJoin('app_routes', (join) => join.onRef('app_routes.session_id', '=', 'routings.session_id').onRef('app_routes.host_port', '=', 'routings.host_port'))
        .select(['routings.id', 'routings.session_id', 'routings.host_port', 'routings.traffic_ratio', 'app_routes.host'])
        .where('routings.endpoint_id', '=', endpointId)
        .where('routings.status', '=', 'healthy')
        .where('routings.host_port', 'is not', null)
        .execute()
        .then((found) => Promise.all(found.map(async (r) => ((await isAppHost(this.app, r.host ?? THIS_MACHINE)) ? r : null))))
        .then((found) => found.filter((r) => r !== null));
      table = {
        endpointId,
        openToPublic: endpoint.open_to_public,
        routes: rows.map((r) => ({ route_id: r.id, session_id: r.session_id ?? '', kernel_host: r.host ?? THIS_MACHINE, kernel_port: r.host_port!, traffic_ratio: Number(r.traffic_ratio) })),
      };
    }
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(endpointId, { table, expires: now + TTL_MS });
    return table;
  }
}

/** A route chosen in proportion to traffic_ratio (routes at 0 get nothing); null when none takes traffic. */
export function pickRoute(routes: ServiceRoute[], random = Math.random()): ServiceRoute | null {
  const total = routes.reduce((sum, r) => sum + Math.max(0, r.traffic_ratio), 0);
  if (total <= 0) return null;
  let point = random * total;
  for (const route of routes) {
    point -= Math.max(0, route.traffic_ratio);
    if (point < 0) return route;
  }
  return routes.filter((r) => r.traffic_ratio > 0).at(-1) ?? null;
}

const tables = new WeakMap<App, ServiceRouteTable>();

export function routeTableOf(app: App): ServiceRouteTable {
  let table = tables.get(app);
  if (!table) tables.set(app, (table = new ServiceRouteTable(app)));
  return table;
}
