/**
 * Compute sessions and their containers (kernels), with Backend.AI's field names: compute_session(_list),
 * compute_container(_list) and modify_compute_session. Visibility is the REST rule (server/sessions/access.ts,
 * seesSession and visibleSessions): one's own sessions (by access key), a domain admin's domain, everything for
 * superadmins. A session the caller may not see reads as null, exactly like one that does not exist.
 */
import type { AnySelect } from '../db/untyped';
import { isAdmin } from '../auth/principal';
import type { Kernel, Session } from '../db/schema';
import { Problem } from '../http/problem';
import { seesSession, visibleSessions } from '../sessions/access';
import { modifySession, type SessionChanges } from '../sessions/modify';
import { SESSION_STATUSES } from '../sessions/states';
import { adminDomainScope, dbOf, groupBy, invalid, loader, mutation, notFound, type GqlContext, type ResolverMap } from './context';
import { LIST_ARGS_SDL, runList, fieldsOf, type FieldMap, type FieldSpec, type ListArgs } from '../db/list-query';
import { canonicalUuid } from '../util/uuid';
import { formatKernelStat } from '../sessions/kernel-stats';
import { idleChecksWith, idleLimitsOf, type IdleLimits } from '../culling/checks';
import { queuePlaces, type QueuePlace } from '../sessions/scheduler/queue';
import { entityResults, resultTypes } from './sdl';

// group_id is a String, as in Backend.AI (clients declare `$group_id: String`); it is checked as a UUID.
const SESSION_FILTER_ARGS = 'status: String, access_key: String, group_id: String, domain_name: String';

export const sessionTypeDefs = /* GraphQL */ `
  type ComputeContainer {
    id: UUID
    "The session's id."
    session_id: UUID
    "The cluster index (1-based)."
    idx: Int
    role: String
    hostname: String
    cluster_idx: Int
    cluster_role: String
    cluster_hostname: String
    local_rank: Int
    image: String
    architecture: String
    registry: String
    status: String
    status_changed: DateTime
    status_info: String
    status_data: JSONString
    status_history: JSONString
    created_at: DateTime
    terminated_at: DateTime
    starts_at: DateTime
    "When the session was scheduled (its SCHEDULED entry in status_history)."
    scheduled_at: DateTime
    scaling_group: String
    "The agent's id."
    agent: String
    agent_id: String
    "The agent's address."
    agent_addr: String
    container_id: String
    occupied_slots: JSONString
    resource_opts: JSONString
    service_ports: JSONString
    exit_code: Int
    last_stat: JSONString
    live_stat: JSONString
    commit_status: String
    "Always null: Berth has no abuse detector."
    abusing_report: JSONString
    "Always empty: Berth has no preopened ports."
    preopen_ports: [Int]
  }

  type ComputeContainerList {
    items: [ComputeContainer]!
    total_count: Int!
  }

  type ComputeSession {
    id: UUID
    "The same as id (Backend.AI keeps both)."
    session_id: UUID
    name: String
    "interactive, batch or inference."
    type: String
    "The session type in upper case (Backend.AI's legacy field)."
    main_kernel_role: String
    tag: String
    priority: Int
    image: String
    architecture: String
    registry: String
    "Always null: sessions are not made from cluster templates."
    cluster_template: String
    cluster_mode: String
    cluster_size: Int
    domain_name: String
    group_id: UUID
    group_name: String
    user_id: UUID
    user_email: String
    full_name: String
    "The owner's access key."
    access_key: String
    "The owner's email: Berth does not record a delegating admin apart from the owner."
    created_user_email: String
    "The owner's UUID: Berth does not record a delegating admin apart from the owner."
    created_user_id: UUID
    scaling_group: String
    status: String
    status_info: String
    status_data: JSONString
    "Each status entered, mapped to the ISO time it was entered."
    status_history: JSONString
    status_changed: DateTime
    created_at: DateTime
    terminated_at: DateTime
    starts_at: DateTime
    "When the session was scheduled (its SCHEDULED entry in status_history)."
    scheduled_at: DateTime
    "undefined, success or failure."
    result: String
    startup_command: String
    callback_url: String
    occupied_slots: JSONString
    occupying_slots: JSONString
    requested_slots: JSONString
    "Each container's resource options by its cluster hostname, as Backend.AI answers them."
    resource_opts: JSONString
    environ: JSONString
    service_ports: JSONString
    "Names of the mounted folders."
    mounts: [String]
    "Ids of the mounted folders."
    vfolder_mounts: [String]
    num_queries: BigInt
    agent_ids: [String]
    "The same as agent_ids (Backend.AI's legacy name)."
    agents: [String]
    main_kernel_id: UUID
    "What the idle culler measures (the keypair policy's idle_timeout and max_session_lifetime), as GET /session/{name}'s idleChecks: {idle_timeout: {threshold, remaining, last_activity}, session_lifetime: {threshold, remaining}}, each only when it applies; {} otherwise."
    idle_checks: JSONString
    "A pending session's place in its scaling group's queue (1 = next); null when not pending or not yet in line."
    queue_position: Int
    "When a pending session may start, as an ISO time, or unknown; null when not pending."
    estimated_start: String
    "Always empty: Berth has no abuse detector."
    abusing_reports: [JSONString]
    "Always null: Berth collects no inference metrics."
    inference_metrics: JSONString
    commit_status: String
    containers: [ComputeContainer]
    dependencies: [ComputeSession]
  }

  type ComputeSessionList {
    items: [ComputeSession]!
    total_count: Int!
  }

  input ModifyComputeSessionInput {
    "A new name; only a RUNNING session can be renamed (as POST /session/{name}/rename)."
    name: String
    "0 to 100; the scheduler serves higher priorities first."
    priority: Int
  }

  ${resultTypes(entityResults('ComputeSession', 'compute_session', ['Modify']))}

  extend type Query {
    compute_session(id: UUID!): ComputeSession
    "status: one status or several separated by commas, e.g. RUNNING,RESTARTING."
    compute_session_list(${LIST_ARGS_SDL}, ${SESSION_FILTER_ARGS}): ComputeSessionList
    compute_container(id: UUID!): ComputeContainer
    compute_container_list(${LIST_ARGS_SDL}, session_id: ID!, role: String): ComputeContainerList
  }

  extend type Mutation {
    modify_compute_session(id: UUID!, props: ModifyComputeSessionInput!): ModifyComputeSession
  }
`;

const AGENT_FIELD: FieldSpec = { column: 's.id', type: 'string', through: { table: 'kernels as fk', key: 'fk.session_id', value: 'fk.agent_id' } };

const SESSION_FIELDS: FieldMap = {
  ...fieldsOf('s', {
    uuid: ['id', 'session_id:id', 'group_id', 'user_id:user_uuid'],
    string: [
      'name', 'type:session_type', 'tag', 'image', 'architecture', 'cluster_mode', 'domain_name', 'group_name:g.name', 'user_email:u.email',
      'full_name:u.full_name', 'access_key', 'scaling_group:scaling_group_name', 'status', 'status_info', 'result', 'startup_command'
    ],
    number: ['priority', 'cluster_size', 'num_queries'],
    datetime: ['status_changed', 'created_at', 'terminated_at', 'starts_at'],
  }),
  // A session's agents are those of its kernels; Backend.AI names the filter three ways.
  agent_ids: AGENT_FIELD,
  agent_id: AGENT_FIELD,
  agents: AGENT_FIELD,
};

const CONTAINER_FIELDS: FieldMap = fieldsOf('k', {
  uuid: ['id'],
  string: ['role:cluster_role', 'cluster_role', 'hostname:cluster_hostname', 'cluster_hostname', 'agent:agent_id', 'agent_id', 'status', 'status_info'],
  number: ['idx:cluster_idx', 'cluster_idx'],
  datetime: ['status_changed', 'created_at', 'terminated_at'],
});

/** A session row with the owner's email and name and the project's name. */
type SessionRow = Session & { user_email: string | null; full_name: string | null; group_name: string | null };
/** A kernel row with the fields it shares with its session. */
type ContainerRow = Kernel & {
  image: string;
  architecture: string;
  scaling_group_name: string;
  starts_at: Date | null;
  resource_opts: Record<string, unknown>;
  access_key: string;
  domain_name: string;
};

function sessionsFrom(ctx: GqlContext) {
  return dbOf(ctx).selectFrom('sessions as s');
}

/** The owner and the project of `s`: at most one row each. */
function withOwnerAndProject(qb: AnySelect): AnySelect {
  return qb.leftJoin('users as u', 'u.uuid', 's.user_uuid').leftJoin('groups as g', 'g.id', 's.group_id');
}

function selectSession(qb: AnySelect): AnySelect<SessionRow> {
  return withOwnerAndProject(qb).selectAll('s').select(['u.email as user_email', 'u.full_name as full_name', 'g.name as group_name']);
}

function sees(ctx: GqlContext, row: { access_key: string; domain_name: string }): boolean {
  return seesSession(ctx.principal, row);
}

/** Statuses from "A,B, C" (case-insensitive); an unknown status is refused. */
function parseStatuses(text: string): string[] {
  const statuses = text
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  for (const status of statuses) {
    if (!(SESSION_STATUSES as readonly string[]).includes(status)) throw invalid(`status: unknown session status ${status}; known: ${SESSION_STATUSES.join(', ')}.`);
  }
  return statuses;
}

interface SessionFilterArgs {
  status?: string | null;
  access_key?: string | null;
  group_id?: string | null;
  domain_name?: string | null;
}

function scopedSessions(ctx: GqlContext, args: SessionFilterArgs) {
  const p = ctx.principal;
  let q = visibleSessions(p, sessionsFrom(ctx));
  if (args.domain_name) {
    if (isAdmin(p)) adminDomainScope(ctx, args.domain_name);
    else if (args.domain_name !== p.domainName) throw new Problem('generic-forbidden', 'You may list only your own sessions.');
    q = q.where('s.domain_name', '=', args.domain_name);
  }
  if (args.access_key) {
    if (!isAdmin(p) && args.access_key !== p.accessKey) throw new Problem('generic-forbidden', 'You may list only your own sessions.');
    q = q.where('s.access_key', '=', args.access_key);
  }
  if (args.group_id) {
    const groupId = canonicalUuid(args.group_id);
    if (!groupId) throw invalid('group_id must be a project UUID.');
    q = q.where('s.group_id', '=', groupId);
  }
  if (args.status) {
    const statuses = parseStatuses(args.status);
    if (statuses.length) q = q.where('s.status', 'in', statuses);
  }
  return q;
}

/** The sessions of one access key the caller may see, newest first (KeyPair.compute_sessions). */
export function sessionsOfKeypair(ctx: GqlContext, accessKey: string, status?: string | null): Promise<SessionRow[]> {
  return selectSession(scopedSessions(ctx, { access_key: accessKey, status })).orderBy('s.created_at', 'desc').orderBy('s.id').execute();
}

async function loadSession(ctx: GqlContext, id: string): Promise<SessionRow | undefined> {
  const row = await selectSession(sessionsFrom(ctx)).where('s.id', '=', id).executeTakeFirst();
  return row && sees(ctx, row) ? row : undefined;
}

function containersFrom(ctx: GqlContext) {
  return dbOf(ctx).selectFrom('kernels as k').innerJoin('sessions as s', 's.id', 'k.session_id');
}

function selectContainer(qb: AnySelect): AnySelect<ContainerRow> {
  return qb
    .selectAll('k')
    .select(['s.image', 's.architecture', 's.scaling_group_name', 's.starts_at', 's.resource_opts', 's.access_key', 's.domain_name']);
}

/** The kernels placed on an agent (optionally in one of the given statuses), as ComputeContainer rows. */
export function containersOnAgent(ctx: GqlContext, agentId: string, statuses?: string[]): Promise<ContainerRow[]> {
  let q = selectContainer(containersFrom(ctx)).where('k.agent_id', '=', agentId);
  if (statuses?.length) q = q.where('k.status', 'in', statuses);
  return q.orderBy('k.created_at').orderBy('k.id').execute();
}

const registryOf = (image: string) => (image.includes('/') ? image.split('/')[0] : 'local');

/** Queue places of the pending sessions in one answer, computed once per scaling group. */
function queuePlaceOf(ctx: GqlContext, s: SessionRow): Promise<QueuePlace | undefined> {
  if (s.status !== 'PENDING') return Promise.resolve(undefined);
  const load = loader<SessionRow, QueuePlace>(ctx, 'session.queue', async (rows) => {
    const places = await queuePlaces(ctx.app, rows);
    return new Map(rows.map((r) => [r, places.get(r.id)!]));
  });
  return load.load(s);
}

/** The kernels of the sessions being resolved, loaded together. */
function kernelsOf(ctx: GqlContext, sessionId: string): Promise<ContainerRow[]> {
  const load = loader<string, ContainerRow[]>(ctx, 'session.kernels', async (ids) => {
    const rows = await selectContainer(containersFrom(ctx)).where('k.session_id', 'in', ids).orderBy('k.cluster_idx').orderBy('k.id').execute();
    return groupBy(rows, (r) => r.session_id);
  });
  return load.load(sessionId).then((rows) => rows ?? []);
}

/** The live statistics of a kernel from its agent, in the REST `lastStat` form; null when it is not running. */
function liveStat(ctx: GqlContext, kernel: ContainerRow): Record<string, unknown> | null {
  const agent = kernel.agent_id ? ctx.app.agents.get(kernel.agent_id) : undefined;
  if (!agent || !agent.isAlive(kernel.id)) return null;
  return formatKernelStat(agent.stats(kernel.id));
}

async function agentIdsOf(ctx: GqlContext, sessionId: string): Promise<string[]> {
  return [...new Set((await kernelsOf(ctx, sessionId)).map((k) => k.agent_id).filter((a): a is string => Boolean(a)))];
}

/** The agents' addresses, loaded together. */
function agentAddr(ctx: GqlContext, agentId: string): Promise<string | undefined> {
  return loader<string, string>(ctx, 'agent.addr', async (ids) => {
    const rows = await dbOf(ctx).selectFrom('agents').select(['id', 'addr']).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.addr]));
  }).load(agentId);
}

/** The time a session or kernel entered SCHEDULED, from its status history. */
function scheduledAt(history: Record<string, string> | null | undefined): string | null {
  return history?.SCHEDULED ?? null;
}

export const sessionResolvers: ResolverMap = {
  Query: {
    compute_session: async (_root, args: { id: string }, ctx) => (await loadSession(ctx, args.id)) ?? null,
    compute_session_list: (_root, args: SessionFilterArgs & ListArgs, ctx) =>
      runList(scopedSessions(ctx, args), args, SESSION_FIELDS, 's.id', selectSession, { keyed: true, joins: withOwnerAndProject }),
    compute_container: async (_root, args: { id: string }, ctx) => {
      const row = await selectContainer(containersFrom(ctx)).where('k.id', '=', args.id).executeTakeFirst();
      return row && sees(ctx, row) ? row : null;
    },
    compute_container_list: async (_root, args: ListArgs & { session_id: string; role?: string | null }, ctx) => {
      const id = canonicalUuid(args.session_id);
      if (!id) throw invalid('session_id must be a session UUID.');
      const session = await loadSession(ctx, id);
      if (!session) throw notFound('session');
      let q = containersFrom(ctx).where('k.session_id', '=', id);
      if (args.role) q = q.where('k.cluster_role', '=', args.role);
      return runList(q, args, CONTAINER_FIELDS, 'k.cluster_idx', selectContainer);
    },
  },
  ComputeSession: {
    session_id: (s: SessionRow) => s.id,
    type: (s: SessionRow) => s.session_type,
    registry: (s: SessionRow) => registryOf(s.image),
    user_id: (s: SessionRow) => s.user_uuid,
    scaling_group: (s: SessionRow) => s.scaling_group_name,
    status_info: (s: SessionRow) => s.status_info ?? '',
    occupied_slots: (s: SessionRow) => s.occupying_slots,
    mounts: (s: SessionRow) => s.mounts.map((m) => m.name),
    vfolder_mounts: (s: SessionRow) => [...new Set(s.mounts.map((m) => m.id))],
    main_kernel_role: (s: SessionRow) => s.session_type.toUpperCase(),
    resource_opts: async (s: SessionRow, _args, ctx: GqlContext) =>
      Object.fromEntries((await kernelsOf(ctx, s.id)).map((k) => [k.cluster_hostname, k.resource_opts ?? {}])),
    created_user_email: (s: SessionRow) => s.user_email,
    created_user_id: (s: SessionRow) => s.user_uuid,
    scheduled_at: (s: SessionRow) => scheduledAt(s.status_history),
    agent_ids: (s: SessionRow, _args, ctx: GqlContext) => agentIdsOf(ctx, s.id),
    agents: (s: SessionRow, _args, ctx: GqlContext) => agentIdsOf(ctx, s.id),
    idle_checks: async (s: SessionRow, _args, ctx: GqlContext) =>
      idleChecksWith(s, await loader<string, IdleLimits>(ctx, 'session.idle-limits', (keys) => idleLimitsOf(ctx.app, keys)).load(s.access_key)),
    queue_position: async (s: SessionRow, _args, ctx: GqlContext) => (await queuePlaceOf(ctx, s))?.position ?? null,
    estimated_start: async (s: SessionRow, _args, ctx: GqlContext) => (await queuePlaceOf(ctx, s))?.estimatedStart ?? null,
    abusing_reports: () => [],
    inference_metrics: () => null,
    main_kernel_id: async (s: SessionRow, _args, ctx: GqlContext) => (await kernelsOf(ctx, s.id)).find((k) => k.cluster_role === 'main')?.id ?? null,
    service_ports: async (s: SessionRow, _args, ctx: GqlContext) => {
      const main = (await kernelsOf(ctx, s.id)).find((k) => k.cluster_role === 'main');
      return (main?.service_ports ?? []).map(({ name, protocol, ports, url_template, allowed_arguments, allowed_envs }) => ({
        name, protocol, container_ports: ports, url_template: url_template ?? null, allowed_arguments: allowed_arguments ?? null, allowed_envs: allowed_envs ?? null,
      }));
    },
    commit_status: async (s: SessionRow, _args, ctx: GqlContext) => {
      const main = (await kernelsOf(ctx, s.id)).find((k) => k.cluster_role === 'main');
      return main ? (main.commit_status === 'ongoing' ? 'ongoing' : 'ready') : null;
    },
    containers: (s: SessionRow, _args, ctx: GqlContext) => kernelsOf(ctx, s.id),
    dependencies: async (s: SessionRow, _args, ctx: GqlContext) => {
      const rows = await selectSession(sessionsFrom(ctx))
        .innerJoin('session_dependencies as d', 'd.depends_on', 's.id')
        .where('d.session_id', '=', s.id)
        .orderBy('s.created_at')
        .execute();
      return rows.filter((row) => sees(ctx, row));
    },
  },
  ComputeContainer: {
    idx: (k: ContainerRow) => k.cluster_idx,
    role: (k: ContainerRow) => k.cluster_role,
    hostname: (k: ContainerRow) => k.cluster_hostname,
    local_rank: (k: ContainerRow) => k.cluster_idx - 1,
    registry: (k: ContainerRow) => registryOf(k.image),
    status_info: (k: ContainerRow) => k.status_info ?? '',
    scaling_group: (k: ContainerRow) => k.scaling_group_name,
    agent: (k: ContainerRow) => k.agent_id,
    agent_addr: async (k: ContainerRow, _args, ctx: GqlContext) => (k.agent_id ? ((await agentAddr(ctx, k.agent_id)) ?? null) : null),
    scheduled_at: (k: ContainerRow) => scheduledAt(k.status_history),
    abusing_report: () => null,
    preopen_ports: () => [],
    service_ports: (k: ContainerRow) => k.service_ports.map(({ name, protocol, ports }) => ({ name, protocol, container_ports: ports })),
    live_stat: (k: ContainerRow, _args, ctx: GqlContext) => liveStat(ctx, k),
  },
  Mutation: {
    modify_compute_session: mutation(async (args: { id: string; props: SessionChanges }, ctx) => {
      const row = await loadSession(ctx, args.id);
      if (!row) throw notFound('session');
      await modifySession(ctx.app, row, args.props);
      return { compute_session: await loadSession(ctx, row.id) };
    }),
  },
};
