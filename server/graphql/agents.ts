/**
 * Agents: superadmins read full records (agent, agent_list) and modify them; every user reads summaries of the
 * agents in scaling groups open to their domain, projects or keypairs (agent_summary, agent_summary_list).
 */
import { isSuperadmin } from '../auth/principal';
import { dbOf, invalid, mutation, requireSuperadmin, type GqlContext, type ResolverMap } from './context';
import { modifyAgent } from '../manager/modify-agent';
import { LIST_ARGS_SDL, runList, fieldsOf, type FieldMap, type ListArgs } from '../db/list-query';
import { containersOnAgent } from './sessions';
import { OCCUPYING_AGENT, SESSION_STATUSES } from '../sessions/states';
import type { Slots } from '../db/schema';
import { entityResults, resultTypes } from './sdl';

const AGENT_FILTER_ARGS = 'scaling_group: String, status: String';

export const agentTypeDefs = /* GraphQL */ `
  type Agent {
    id: ID
    "ALIVE, LOST, RESTARTING or TERMINATED."
    status: String
    status_changed: DateTime
    region: String
    scaling_group: String
    schedulable: Boolean
    available_slots: JSONString
    occupied_slots: JSONString
    addr: String
    public_host: String
    architecture: String
    first_contact: DateTime
    lost_at: DateTime
    version: String
    compute_plugins: JSONString
    "Figures summed over the kernels running on the agent: node.mem (current, capacity, pct) and node.cpu_used (msec)."
    live_stat: JSONString
    "Always null: Berth does not sample the agent's CPU utilisation."
    cpu_cur_pct: Float
    "Memory held by the kernels running on the agent."
    mem_cur_bytes: Float
    "Always an empty object: Berth's agents report no device metadata."
    hardware_metadata: JSONString
    "The agent's backend and placement."
    local_config: JSONString
    "Always false: Berth has no abuse detector."
    auto_terminate_abusing_kernel: Boolean
    "Kernels on the agent that hold resources."
    container_count: Int
    "Available memory in MiB (Backend.AI's legacy field)."
    mem_slots: Int
    cpu_slots: Float
    gpu_slots: Float
    tpu_slots: Float
    "Occupied memory in MiB (Backend.AI's legacy field)."
    used_mem_slots: Int
    used_cpu_slots: Float
    used_gpu_slots: Float
    used_tpu_slots: Float
    "The kernels on the agent; status: one status or several separated by commas."
    compute_containers(status: String): [ComputeContainer]
  }

  type AgentList {
    items: [Agent]!
    total_count: Int!
  }

  type AgentSummary {
    id: ID
    status: String
    scaling_group: String
    schedulable: Boolean
    available_slots: JSONString
    occupied_slots: JSONString
    architecture: String
  }

  type AgentSummaryList {
    items: [AgentSummary]!
    total_count: Int!
  }

  input ModifyAgentInput {
    schedulable: Boolean
    scaling_group: String
  }

  ${resultTypes(entityResults('Agent', 'agent', ['Modify']))}

  extend type Query {
    agent(agent_id: String!): Agent
    agents(${AGENT_FILTER_ARGS}): [Agent]
    agent_list(${LIST_ARGS_SDL}, ${AGENT_FILTER_ARGS}): AgentList
    agent_summary(agent_id: String!): AgentSummary
    agent_summary_list(${LIST_ARGS_SDL}, ${AGENT_FILTER_ARGS}): AgentSummaryList
  }

  extend type Mutation {
    modify_agent(id: String!, props: ModifyAgentInput!): ModifyAgent
  }
`;

const AGENT_FIELDS: FieldMap = fieldsOf(null, {
  string: ['id', 'status', 'scaling_group', 'region', 'addr', 'architecture', 'version'],
  boolean: ['schedulable'],
  datetime: ['status_changed', 'first_contact', 'lost_at'],
});

const SUMMARY_FIELDS: FieldMap = {
  id: AGENT_FIELDS.id,
  status: AGENT_FIELDS.status,
  scaling_group: AGENT_FIELDS.scaling_group,
  schedulable: AGENT_FIELDS.schedulable,
  architecture: AGENT_FIELDS.architecture,
};

interface AgentFilterArgs {
  scaling_group?: string | null;
  status?: string | null;
}

/** Agents, narrowed to scaling groups the caller may use unless they are a superadmin. */
function scopedAgents(ctx: GqlContext, args: AgentFilterArgs) {
  const p = ctx.principal;
  let q = dbOf(ctx).selectFrom('agents');
  if (args.scaling_group) q = q.where('scaling_group', '=', args.scaling_group);
  if (args.status) q = q.where('status', '=', args.status.toUpperCase());
  if (isSuperadmin(p)) return q;
  return q.where((eb) =>
    eb.or([
      eb('scaling_group', 'in', eb.selectFrom('sgroups_for_domains').select('scaling_group').where('domain', '=', p.domainName)),
      eb(
        'scaling_group',
        'in',
        eb
          .selectFrom('sgroups_for_groups')
          .select('scaling_group')
          .where('group_id', 'in', eb.selectFrom('association_groups_users').select('group_id').where('user_id', '=', p.userId)),
      ),
      eb('scaling_group', 'in', eb.selectFrom('sgroups_for_keypairs').select('scaling_group').where('access_key', '=', p.accessKey)),
    ]),
  );
}

type AgentRow = { id: string; backend: string; region: string; scaling_group: string; available_slots: Slots; occupied_slots: Slots };

const MIB = 1024 * 1024;

function slot(slots: Slots, key: string): number {
  const n = Number((slots as Record<string, unknown>)[key] ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/** Memory and CPU time of the kernels alive on the agent, from the agent itself (null when it is not connected). */
async function liveFigures(ctx: GqlContext, agent: AgentRow): Promise<{ mem: number; cpuUsedMs: number } | null> {
  const live = ctx.app.agents.get(agent.id);
  if (!live) return null;
  let mem = 0;
  let cpuUsedMs = 0;
  for (const kernel of await containersOnAgent(ctx, agent.id, [...OCCUPYING_AGENT])) {
    if (!live.isAlive(kernel.id)) continue;
    const stats = live.stats(kernel.id);
    mem += stats.memoryBytes ?? 0;
    cpuUsedMs += stats.cpuUsedMs ?? 0;
  }
  return { mem, cpuUsedMs };
}

export const agentResolvers: ResolverMap = {
  Agent: {
    live_stat: async (a: AgentRow, _args, ctx: GqlContext) => {
      const figures = await liveFigures(ctx, a);
      if (!figures) return null;
      const capacity = slot(a.available_slots, 'mem');
      return {
        node: {
          mem: { current: String(figures.mem), capacity: String(capacity), pct: capacity ? ((100 * figures.mem) / capacity).toFixed(2) : null, unit_hint: 'bytes' },
          cpu_used: { current: String(Math.round(figures.cpuUsedMs)), unit_hint: 'msec' },
        },
        devices: {},
      };
    },
    cpu_cur_pct: () => null,
    mem_cur_bytes: async (a: AgentRow, _args, ctx: GqlContext) => (await liveFigures(ctx, a))?.mem ?? null,
    hardware_metadata: () => ({}),
    local_config: (a: AgentRow) => ({ agent: { id: a.id, backend: a.backend, region: a.region, scaling_group: a.scaling_group } }),
    auto_terminate_abusing_kernel: () => false,
    container_count: async (a: AgentRow, _args, ctx: GqlContext) => (await containersOnAgent(ctx, a.id, [...OCCUPYING_AGENT])).length,
    mem_slots: (a: AgentRow) => Math.floor(slot(a.available_slots, 'mem') / MIB),
    cpu_slots: (a: AgentRow) => slot(a.available_slots, 'cpu'),
    gpu_slots: (a: AgentRow) => slot(a.available_slots, 'cuda.device'),
    tpu_slots: (a: AgentRow) => slot(a.available_slots, 'tpu.device'),
    used_mem_slots: (a: AgentRow) => Math.floor(slot(a.occupied_slots, 'mem') / MIB),
    used_cpu_slots: (a: AgentRow) => slot(a.occupied_slots, 'cpu'),
    used_gpu_slots: (a: AgentRow) => slot(a.occupied_slots, 'cuda.device'),
    used_tpu_slots: (a: AgentRow) => slot(a.occupied_slots, 'tpu.device'),
    compute_containers: (a: AgentRow, args: { status?: string | null }, ctx: GqlContext) => {
      const statuses = (args.status ?? '').split(',').map((x) => x.trim().toUpperCase()).filter(Boolean);
      for (const s of statuses) if (!(SESSION_STATUSES as readonly string[]).includes(s)) throw invalid(`status: unknown status ${s}.`);
      return containersOnAgent(ctx, a.id, statuses);
    },
  },
  Query: {
    agent: async (_root, args: { agent_id: string }, ctx) => {
      requireSuperadmin(ctx);
      return (await dbOf(ctx).selectFrom('agents').selectAll().where('id', '=', args.agent_id).executeTakeFirst()) ?? null;
    },
    agents: (_root, args: AgentFilterArgs, ctx) => {
      requireSuperadmin(ctx);
      return scopedAgents(ctx, args).selectAll().orderBy('id').execute();
    },
    agent_list: (_root, args: AgentFilterArgs & ListArgs, ctx) => {
      requireSuperadmin(ctx);
      return runList(scopedAgents(ctx, args), args, AGENT_FIELDS, 'id', (qb) => qb.selectAll());
    },
    agent_summary: async (_root, args: { agent_id: string }, ctx) =>
      (await scopedAgents(ctx, {}).selectAll().where('id', '=', args.agent_id).executeTakeFirst()) ?? null,
    agent_summary_list: (_root, args: AgentFilterArgs & ListArgs, ctx) => runList(scopedAgents(ctx, args), args, SUMMARY_FIELDS, 'id', (qb) => qb.selectAll()),
  },
  Mutation: {
    modify_agent: mutation((args: { id: string; props: { schedulable?: boolean | null; scaling_group?: string | null } }, ctx) => modifyAgent(ctx.app, ctx.principal, args)),
  },
};
