/**
 * Model services in GraphQL (CONTRACT §16: endpoint, endpoint_list, routing, routing_list, endpoint_token_list,
 * modify_endpoint), with Backend.AI's field names. Visibility is the REST rule of server/services/access.ts: one's
 * own services (by user), a domain admin's domain, everything for superadmins; anything else reads as null. Destroyed
 * services are listed too (lifecycle_stage says so). `status` is the derived service status of CONTRACT §5.4.
 */
import type { AnySelect } from '../db/untyped';
import type { Endpoint, Routing } from '../db/schema';
import { SERVICE_MAX_RETRIES } from '../services/limits';
import { serviceEndpointUrl } from '../services/shapes';
import { reachableServices, reachesService } from '../services/access';
import { modifyEndpoint, type EndpointChanges } from '../services/modify-endpoint';
import { dbOf, groupBy, invalid, loader, mutation, notFound, type GqlContext, type ResolverMap } from './context';
import { LIST_ARGS_SDL, runList, fieldsOf, type FieldMap, type ListArgs } from '../db/list-query';
import { canonicalUuid } from '../util/uuid';
import { entityResults, resultTypes } from './sdl';

export const endpointTypeDefs = /* GraphQL */ `
  type Routing {
    id: UUID
    routing_id: UUID
    endpoint: UUID
    session: UUID
    "provisioning, healthy, unhealthy, terminating or failed_to_start."
    status: String
    traffic_ratio: Float
    created_at: DateTime
    error_data: JSONString
  }

  type RoutingList {
    items: [Routing]!
    total_count: Int!
  }

  type InferenceSessionError {
    session_id: UUID
    errors: [InferenceSessionErrorInfo]
  }

  type InferenceSessionErrorInfo {
    src: String
    name: String
    repr: String
  }

  type Endpoint {
    id: UUID
    endpoint_id: UUID
    name: String
    image: String
    architecture: String
    domain: String
    project: UUID
    resource_group: String
    resource_slots: JSONString
    "The service's address on the app proxy."
    url: String
    model: UUID
    model_definition_path: String
    model_mount_destination: String
    extra_mounts: [UUID]
    created_user: UUID
    created_user_email: String
    session_owner: UUID
    session_owner_email: String
    tag: String
    startup_command: String
    bootstrap_script: String
    callback_url: String
    environ: JSONString
    resource_opts: JSONString
    replicas: Int
    desired_session_count: Int
    cluster_mode: String
    cluster_size: Int
    open_to_public: Boolean
    runtime_variant: String
    created_at: DateTime
    destroyed_at: DateTime
    "created, destroying or destroyed."
    lifecycle_stage: String
    retries: Int
    "HEALTHY, DEGRADED, UNHEALTHY, PROVISIONING, or DESTROYING once deleted."
    status: String
    routings: [Routing]
    errors: [InferenceSessionError]
  }

  type EndpointList {
    items: [Endpoint]!
    total_count: Int!
  }

  type EndpointToken {
    id: UUID
    "Tokens are not stored; only their records are (null)."
    token: String
    endpoint_id: UUID
    domain: String
    project: UUID
    session_owner: UUID
    created_at: DateTime
    valid_until: DateTime
  }

  type EndpointTokenList {
    items: [EndpointToken]!
    total_count: Int!
  }

  input ModifyEndpointInput {
    replicas: Int
    desired_session_count: Int
    open_to_public: Boolean
    environ: JSONString
  }

  ${resultTypes(entityResults('Endpoint', 'endpoint', ['Modify']))}

  extend type Query {
    endpoint(endpoint_id: UUID!): Endpoint
    endpoint_list(${LIST_ARGS_SDL}, project: UUID, domain_name: String, user_uuid: UUID): EndpointList
    routing(routing_id: UUID!): Routing
    routing_list(${LIST_ARGS_SDL}, endpoint_id: UUID): RoutingList
    endpoint_token_list(${LIST_ARGS_SDL}, endpoint_id: UUID): EndpointTokenList
  }

  extend type Mutation {
    modify_endpoint(endpoint_id: UUID!, props: ModifyEndpointInput!): ModifyEndpoint
  }
`;

const ENDPOINT_FIELDS: FieldMap = fieldsOf('e', {
  uuid: ['id', 'endpoint_id:id', 'project:group_id', 'model:model_id', 'session_owner', 'created_user'],
  string: ['name', 'image', 'domain:domain_name', 'resource_group:scaling_group_name', 'runtime_variant', 'lifecycle_stage'],
  number: ['desired_session_count', 'replicas:desired_session_count', 'retries'],
  boolean: ['open_to_public'],
  datetime: ['created_at', 'destroyed_at'],
});

const ROUTING_FIELDS: FieldMap = fieldsOf('r', {
  uuid: ['id', 'routing_id:id', 'endpoint:endpoint_id', 'session:session_id'],
  string: ['status'],
  number: ['traffic_ratio'],
  datetime: ['created_at'],
});

const TOKEN_FIELDS: FieldMap = fieldsOf('t', {
  uuid: ['id', 'endpoint_id'],
  datetime: ['created_at', 'valid_until'],
});

type EndpointRow = Endpoint & { created_user_email: string | null; session_owner_email: string | null };

function endpointsFrom(ctx: GqlContext) {
  return dbOf(ctx)
    .selectFrom('endpoints as e')
    .leftJoin('users as cu', 'cu.uuid', 'e.created_user')
    .leftJoin('users as so', 'so.uuid', 'e.session_owner');
}

function selectEndpoint(qb: AnySelect): AnySelect<EndpointRow> {
  return qb.selectAll('e').select(['cu.email as created_user_email', 'so.email as session_owner_email']);
}

async function loadEndpoint(ctx: GqlContext, id: string): Promise<EndpointRow | undefined> {
  const row = await selectEndpoint(endpointsFrom(ctx)).where('e.id', '=', id).executeTakeFirst();
  return row && reachesService(ctx.principal, row) ? row : undefined;
}

function routingsOf(ctx: GqlContext, endpointId: string): Promise<Routing[]> {
  const load = loader<string, Routing[]>(ctx, 'endpoint.routings', async (ids) => {
    const rows = await dbOf(ctx).selectFrom('routings').selectAll().where('endpoint_id', 'in', ids).orderBy('created_at').execute();
    return groupBy(rows, (r) => r.endpoint_id);
  });
  return load.load(endpointId).then((rows) => rows ?? []);
}

/** CONTRACT §5.4's derived status. */
export function serviceStatus(endpoint: Pick<Endpoint, 'lifecycle_stage' | 'retries' | 'desired_session_count'>, routes: Pick<Routing, 'status'>[]): string {
  if (endpoint.lifecycle_stage !== 'created') return 'DESTROYING';
  if (endpoint.retries >= SERVICE_MAX_RETRIES) return 'UNHEALTHY';
  const live = routes.filter((r) => r.status === 'provisioning' || r.status === 'healthy' || r.status === 'unhealthy');
  if (live.some((r) => r.status === 'provisioning') || live.length < endpoint.desired_session_count) return 'PROVISIONING';
  if (live.length && live.every((r) => r.status === 'unhealthy')) return 'UNHEALTHY';
  if (live.some((r) => r.status === 'unhealthy')) return 'DEGRADED';
  return 'HEALTHY';
}

const uuidArg = (value: string | null | undefined, what: string): string => {
  const id = value ? canonicalUuid(value) : null;
  if (!id) throw invalid(`${what} must be a UUID.`);
  return id;
};

export const endpointResolvers: ResolverMap = {
  Query: {
    endpoint: async (_root, args: { endpoint_id: string }, ctx) => (await loadEndpoint(ctx, uuidArg(args.endpoint_id, 'endpoint_id'))) ?? null,
    endpoint_list: (_root, args: ListArgs & { project?: string | null; domain_name?: string | null; user_uuid?: string | null }, ctx) => {
      let q = reachableServices(ctx.principal, endpointsFrom(ctx));
      if (args.project) q = q.where('e.group_id', '=', uuidArg(args.project, 'project'));
      if (args.domain_name) q = q.where('e.domain_name', '=', args.domain_name);
      if (args.user_uuid) q = q.where('e.session_owner', '=', uuidArg(args.user_uuid, 'user_uuid'));
      return runList(q, args, ENDPOINT_FIELDS, 'e.id', selectEndpoint);
    },
    routing: async (_root, args: { routing_id: string }, ctx) => {
      const route = await dbOf(ctx).selectFrom('routings').selectAll().where('id', '=', uuidArg(args.routing_id, 'routing_id')).executeTakeFirst();
      return route && (await loadEndpoint(ctx, route.endpoint_id)) ? route : null;
    },
    routing_list: async (_root, args: ListArgs & { endpoint_id?: string | null }, ctx) => {
      let q = reachableServices(ctx.principal, dbOf(ctx).selectFrom('routings as r').innerJoin('endpoints as e', 'e.id', 'r.endpoint_id'));
      if (args.endpoint_id) q = q.where('r.endpoint_id', '=', uuidArg(args.endpoint_id, 'endpoint_id'));
      return runList(q, args, ROUTING_FIELDS, 'r.id', (qb) => qb.selectAll('r'));
    },
    endpoint_token_list: async (_root, args: ListArgs & { endpoint_id?: string | null }, ctx) => {
      let q = reachableServices(ctx.principal, dbOf(ctx).selectFrom('endpoint_tokens as t').innerJoin('endpoints as e', 'e.id', 't.endpoint_id'));
      if (args.endpoint_id) q = q.where('t.endpoint_id', '=', uuidArg(args.endpoint_id, 'endpoint_id'));
      return runList(q, args, TOKEN_FIELDS, 't.id', (qb) => qb.selectAll('t').select(['e.domain_name as domain', 'e.group_id as project', 'e.session_owner as session_owner']));
    },
  },
  Endpoint: {
    endpoint_id: (e: EndpointRow) => e.id,
    domain: (e: EndpointRow) => e.domain_name,
    project: (e: EndpointRow) => e.group_id,
    resource_group: (e: EndpointRow) => e.scaling_group_name,
    resource_slots: (e: EndpointRow) => e.resources,
    url: (e: EndpointRow, _args, ctx: GqlContext) => (e.lifecycle_stage === 'destroyed' ? null : serviceEndpointUrl(ctx.app, e)),
    model: (e: EndpointRow) => e.model_id,
    extra_mounts: (e: EndpointRow) => Object.keys(e.extra_mounts ?? {}),
    replicas: (e: EndpointRow) => e.desired_session_count,
    status: async (e: EndpointRow, _args, ctx: GqlContext) => serviceStatus(e, await routingsOf(ctx, e.id)),
    routings: (e: EndpointRow, _args, ctx: GqlContext) => routingsOf(ctx, e.id),
    errors: async (e: EndpointRow, _args, ctx: GqlContext) =>
      (await routingsOf(ctx, e.id))
        .filter((r) => r.status === 'failed_to_start')
        .map((r) => ({ session_id: r.session_id, errors: [{ src: '', name: String(r.error?.name ?? 'Error'), repr: String(r.error?.repr ?? '') }] })),
  },
  Routing: {
    routing_id: (r: Routing) => r.id,
    endpoint: (r: Routing) => r.endpoint_id,
    session: (r: Routing) => r.session_id,
    traffic_ratio: (r: Routing) => Number(r.traffic_ratio),
    error_data: (r: Routing) => r.error ?? {},
  },
  EndpointToken: {
    token: () => null,
  },
  Mutation: {
    modify_endpoint: mutation(async (args: { endpoint_id: string; props: EndpointChanges }, ctx) => {
      const endpoint = await loadEndpoint(ctx, uuidArg(args.endpoint_id, 'endpoint_id'));
      if (!endpoint || endpoint.lifecycle_stage !== 'created') throw notFound('endpoint');
      await modifyEndpoint(ctx.app, endpoint, args.props);
      return { endpoint: await loadEndpoint(ctx, endpoint.id) };
    }),
  },
};
