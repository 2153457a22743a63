/**
 * What a service's inference sessions are created with: the service's image, project, resources and
 * environment, its model folder mounted read-only at model_mount_destination, and its extra mounts. The same
 * input validates the service when it is created and creates every route's session afterwards.
 */
import type { CreateSessionInput } from '../sessions/create';
import type { Endpoint, ExtraMounts } from '../db/schema';

/** How long a service name may be: its sessions are named `<service>-<8 hex>` within the 64-character rule. */
export const MAX_SERVICE_NAME = 55;

export type EndpointSpec = Pick<
  Endpoint,
  | 'name' | 'image' | 'architecture' | 'group_id' | 'domain_name' | 'cluster_size' | 'cluster_mode' | 'model_id' | 'model_mount_destination'
  | 'extra_mounts' | 'tag' | 'bootstrap_script' | 'callback_url' | 'environ' | 'resources' | 'resource_opts' | 'scaling_group_name'
>;

export function sessionNameFor(serviceName: string, routeId: string): string {
  return `${serviceName}-${routeId.replace(/-/g, '').slice(0, 8)}`;
}

export function inferenceSessionInput(spec: EndpointSpec, sessionName: string, ownerAccessKey: string): CreateSessionInput {
  const extra: ExtraMounts = spec.extra_mounts ?? {};
  const mountMap: Record<string, string> = { [spec.model_id]: spec.model_mount_destination };
  const mountOptions: Record<string, unknown> = { [spec.model_id]: { permission: 'ro' } };
  for (const [id, options] of Object.entries(extra)) {
    if (options.mount_destination) mountMap[id] = options.mount_destination;
    if (options.permission || options.type) mountOptions[id] = { permission: options.permission, type: options.type };
  }
  return {
    name: sessionName,
    image: spec.image,
    arch: spec.architecture,
    type: 'inference',
    group: spec.group_id,
    domain: spec.domain_name,
    clusterSize: spec.cluster_size,
    clusterMode: spec.cluster_mode as CreateSessionInput['clusterMode'],
    config: {
      mounts: [spec.model_id, ...Object.keys(extra)],
      mount_map: mountMap,
      mount_options: mountOptions,
      environ: spec.environ ?? {},
      resources: spec.resources ?? {},
      resource_opts: spec.resource_opts ?? {},
      scaling_group: spec.scaling_group_name,
    },
    tag: spec.tag ?? undefined,
    priority: 10,
    enqueueOnly: true,
    maxWaitSeconds: 0,
    reuseIfExists: false,
    bootstrapScript: spec.bootstrap_script ?? undefined,
    callbackUrl: spec.callback_url ?? undefined,
    ownerAccessKey,
  };
}
