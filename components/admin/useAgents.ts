'use client';
/** Agents: the list (GraphQL, as much as the caller may read) and taking an agent out of scheduling or back. */
import { useGraphql } from '@/components/api/graphql';
import { managerSend } from '@/components/api/useManager';

export interface AgentRow {
  id: string;
  status: string;
  scaling_group: string;
  schedulable: boolean;
  available_slots: string;
  occupied_slots: string;
  architecture: string | null;
  addr?: string | null;
  version?: string | null;
  region?: string | null;
  status_changed?: string | null;
  first_contact?: string | null;
  lost_at?: string | null;
}

interface AgentList {
  total_count: number;
  items: AgentRow[];
}

const FULL_QUERY = `query($limit: Int!, $offset: Int!) {
  agent_list(limit: $limit, offset: $offset, order: "id") { total_count items { id status status_changed region scaling_group schedulable available_slots occupied_slots addr architecture version first_contact lost_at } }
}`;
const SUMMARY_QUERY = `query($limit: Int!, $offset: Int!) {
  agent_summary_list(limit: $limit, offset: $offset, order: "id") { total_count items { id status scaling_group schedulable available_slots occupied_slots architecture } }
}`;

/** Agents as the caller may read them: full records for superadmins, summaries for everyone else. */
export function useAgents(superadmin: boolean, page: number, pageSize: number, refreshInterval = 10_000) {
  const result = useGraphql<{ agent_list?: AgentList; agent_summary_list?: AgentList }>(
    superadmin ? FULL_QUERY : SUMMARY_QUERY,
    { limit: pageSize, offset: page * pageSize },
    { refreshInterval, keepPreviousData: true },
  );
  return { ...result, list: result.data?.agent_list ?? result.data?.agent_summary_list };
}

/** Whether the scheduler may place new sessions on the agent; running sessions are not touched. */
export async function setAgentSchedulable(id: string, schedulable: boolean): Promise<void> {
  await managerSend('POST', '/manager/scheduler/operation', { op: schedulable ? 'include-agents' : 'exclude-agents', args: [id] });
}
