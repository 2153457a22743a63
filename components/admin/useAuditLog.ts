'use client';
/** The audit log through GraphQL: one page of records, newest first, narrowed by a filter. */
import { useGraphql } from '@/components/api/graphql';

export interface AuditItem {
  created_at: string;
  actor_email: string | null;
  action: string;
  target: string | null;
  status: string;
  request_id: string;
  client_ip: string;
}

export interface AuditPage {
  audit_log_list: { total_count: number; items: AuditItem[] } | null;
}

const QUERY =
  'query($limit: Int!, $offset: Int!, $filter: String) { audit_log_list(limit: $limit, offset: $offset, filter: $filter) { total_count items { created_at actor_email action target status request_id client_ip } } }';

/** One page of the log; the page shown stays while the next loads, and new records arrive every 30 s. */
export function useAuditLog(page: number, pageSize: number, filter: string) {
  return useGraphql<AuditPage>(QUERY, { limit: pageSize, offset: page * pageSize, filter: filter || null }, { keepPreviousData: true, refreshInterval: 30_000 });
}
