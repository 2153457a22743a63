'use client';
/**
 * The summary page's data: the API version and the caller's roles, their live sessions, their resource usage
 * against their limits, and the cluster's capacity.
 */
import useSWR from 'swr';
import type { ManagerError } from '@/components/api/problem';
import { managerSend, useManager } from '@/components/api/useManager';
import { filterString, useGraphql } from '@/components/api/graphql';

export interface VersionInfo {
  version: string;
  manager: string;
}

export interface RoleInfo {
  global_role: string;
  domain_role: string;
  group_role: string | null;
}

export function useApiVersion() {
  return useManager<VersionInfo>('/v2');
}

export function useRoles() {
  return useManager<RoleInfo>('/auth/role');
}

/** POST /resource/check-presets for the default project: the caller's limits, usage and what the scaling groups have left. */
export interface CheckPresets {
  keypair_limits: Record<string, string>;
  keypair_using: Record<string, string>;
  keypair_remaining: Record<string, string>;
  scaling_group_remaining: Record<string, string>;
  scaling_groups: Record<string, { using: Record<string, string>; remaining: Record<string, string> }>;
}

export function useCheckPresets() {
  return useSWR<CheckPresets, ManagerError>(['check-presets'], () => managerSend<CheckPresets>('POST', '/resource/check-presets', {}), {
    refreshInterval: 15_000,
  });
}

/** Statuses of a session that holds (or is about to hold) resources. */
export const LIVE_STATUSES = ['PENDING', 'SCHEDULED', 'PULLING', 'PREPARING', 'RUNNING', 'RESTARTING', 'RUNNING_DEGRADED', 'TERMINATING'];

export interface SummarySession {
  id: string;
  name: string;
  type: string | null;
  status: string;
  status_info: string | null;
  image: string | null;
  created_at: string | null;
  scaling_group: string | null;
  occupying_slots: string | null;
}

/** Never access_key: keys stay on the server. */
const SESSIONS_QUERY = `query($filter: String, $status: String) {
  compute_session_list(limit: 10, offset: 0, filter: $filter, status: $status, order: "-created_at") {
    total_count items { id name type status status_info image created_at scaling_group occupying_slots }
  }
}`;

/** The caller's own live sessions (GraphQL compute_session_list filtered to their email), newest first. */
export function useMySessions(email: string | null) {
  return useGraphql<{ compute_session_list: { total_count: number; items: SummarySession[] } }>(
    email ? SESSIONS_QUERY : null,
    { filter: email ? `user_email == ${filterString(email)}` : null, status: LIVE_STATUSES.join(',') },
    { refreshInterval: 5_000 },
  );
}
