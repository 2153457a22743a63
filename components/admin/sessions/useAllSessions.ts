'use client';
/**
 * Every session the admin may see (their domain's; every domain's for superadmins), a page at a time from the
 * server (GraphQL compute_session_list with limit/offset, filter and order, and the total), and bulk terminate.
 */
import { useGraphql } from '@/components/api/graphql';
import { terminateSession } from '@/components/sessions/useSessions';
import { sessionFilter, sessionOrder, type SessionFilters } from './sessionFilter';

export interface AdminSession {
  id: string;
  name: string;
  status: string;
  image: string;
  user_email: string | null;
  group_name: string | null;
  agent_ids: string[] | null;
  scaling_group: string | null;
  created_at: string | null;
  terminated_at: string | null;
}

const QUERY = `query($limit: Int!, $offset: Int!, $filter: String, $order: String, $status: String) {
  compute_session_list(limit: $limit, offset: $offset, filter: $filter, order: $order, status: $status) {
    total_count
    items { id name status image user_email group_name agent_ids scaling_group created_at terminated_at }
  }
}`;

export interface AllSessionsArgs {
  filters: SessionFilters;
  /** Statuses separated by commas, or '' for every status. */
  status: string;
  sort: { key: string; direction: 'asc' | 'desc' } | null;
  page: number;
  pageSize: number;
}

export function useAllSessions({ filters, status, sort, page, pageSize }: AllSessionsArgs) {
  return useGraphql<{ compute_session_list: { total_count: number; items: AdminSession[] } }>(
    QUERY,
    { limit: pageSize, offset: page * pageSize, filter: sessionFilter(filters), order: sessionOrder(sort), status: status || null },
    { keepPreviousData: true, refreshInterval: 10_000 },
  );
}

/** Terminates each session; returns the ones the manager refused, with its reason. */
export async function terminateSessions(sessions: AdminSession[]): Promise<{ session: AdminSession; error: unknown }[]> {
  const results = await Promise.allSettled(sessions.map((s) => terminateSession(s.id, s.status)));
  return results.flatMap((r, i) => (r.status === 'rejected' ? [{ session: sessions[i], error: r.reason as unknown }] : []));
}

