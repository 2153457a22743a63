/** Response shapes of model services (CONTRACT §13): ServeInfo and the list item. */
import type { App } from '../app';
import type { Endpoint } from '../db/schema';

/** Where the app proxy serves the service, or null when no app proxy is configured. */
export function serviceEndpointUrl(app: App, endpoint: Pick<Endpoint, 'id'>): string | null {
  return app.appProxyUrl ? `${app.appProxyUrl.replace(/\/+$/, '')}/service/${endpoint.id}` : null;
}

export async function serveInfo(app: App, endpoint: Endpoint): Promise<Record<string, unknown>> {
  const routes = await app.db
    .selectFrom('routings')
    .select(['id', 'session_id', 'traffic_ratio'])
    .where('endpoint_id', '=', endpoint.id)
    .where('status', '=', 'healthy')
    .orderBy('created_at')
    .execute();
  return {
    endpoint_id: endpoint.id,
    model_id: endpoint.model_id,
    extra_mounts: Object.keys(endpoint.extra_mounts ?? {}),
    name: endpoint.name,
    desired_session_count: endpoint.desired_session_count,
    model_definition_path: endpoint.model_definition_path,
    active_routes: routes.map((r) => ({ route_id: r.id, session_id: r.session_id, traffic_ratio: Number(r.traffic_ratio) })),
    service_endpoint: serviceEndpointUrl(app, endpoint),
    is_public: endpoint.open_to_public,
    runtime_variant: endpoint.runtime_variant,
  };
}
