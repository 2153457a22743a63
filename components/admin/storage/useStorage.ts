'use client';
/**
 * Storage for admins: the hosts with their capacity (REST /folders/_/hosts), the volumes behind them (GraphQL
 * storage_volume_list, superadmins), folders with their usage (the admin's own reach through vfolder_list, paged on
 * the server, or one user's through REST for superadmins), and quota scopes (quota_scope, set_quota_scope,
 * unset_quota_scope).
 */
import { graphqlMutation, nameFilter, revalidateGraphql, useGraphql } from '@/components/api/graphql';
import { useManager } from '@/components/api/useManager';

export interface HostsAnswer {
  default: string | null;
  allowed: string[];
  volume_info: Record<string, { backend: string; capabilities: string[]; usage: { used: number; total: number; percentage: number } | null }>;
}

export function useHosts() {
  return useManager<HostsAnswer>('/folders/_/hosts');
}

export function useVolumes(enabled: boolean) {
  return useGraphql<{ storage_volume_list: { items: { id: string; backend: string; path: string; capabilities: string[] }[] } }>(enabled ? '{ storage_volume_list(limit: 100) { items { id backend path capabilities } } }' : null);
}

export interface AdminFolder {
  id: string;
  name: string;
  host: string;
  quota_scope_id: string | null;
  ownership_type: string;
  user_email: string | null;
  group_name: string | null;
  status: string;
  cur_size: number | null;
  max_size: number | null;
}

const FOLDERS = `query($limit: Int!, $offset: Int!, $filter: String, $order: String) {
  vfolder_list(limit: $limit, offset: $offset, filter: $filter, order: $order) { total_count items { id name host quota_scope_id ownership_type user_email group_name status cur_size max_size } }
}`;

export function useFolders({ search, page, pageSize, order }: { search: string; page: number; pageSize: number; order: string }) {
  const filter = nameFilter(search);
  return useGraphql<{ vfolder_list: { total_count: number; items: AdminFolder[] } }>(FOLDERS, { limit: pageSize, offset: page * pageSize, filter, order }, { keepPreviousData: true });
}

/** Another user's folders (superadmins; REST GET /folders?owner_user_email=): the manager lists no one's folders in bulk. */
export function useFoldersOf(email: string | null) {
  return useManager<AdminFolder[]>(email ? `/folders?${new URLSearchParams({ owner_user_email: email })}` : null);
}

export interface QuotaScope {
  quota_scope_id: string;
  storage_host_name: string;
  details: { usage_bytes: number | null; usage_count: number | null; hard_limit_bytes: number | null };
}

export function useQuotaScope(host: string | null, scope: string | null) {
  return useGraphql<{ quota_scope: QuotaScope | null }>(
    host && scope ? 'query($h: String!, $s: String!) { quota_scope(storage_host_name: $h, quota_scope_id: $s) { quota_scope_id storage_host_name details { usage_bytes usage_count hard_limit_bytes } } }' : null,
    { h: host, s: scope },
  );
}

/** Sets a quota scope's limit in bytes; 0 drops the scope's own limit (the policy's maximum applies). */
export async function setQuota(host: string, scope: string, bytes: number): Promise<void> {
  if (bytes > 0) {
    await graphqlMutation('set_quota_scope', 'mutation($h: String!, $s: String!, $b: BigInt) { set_quota_scope(storage_host_name: $h, quota_scope_id: $s, props: { hard_limit_bytes: $b }) { ok msg } }', { h: host, s: scope, b: bytes });
  } else {
    await graphqlMutation('unset_quota_scope', 'mutation($h: String!, $s: String!) { unset_quota_scope(storage_host_name: $h, quota_scope_id: $s) { ok msg } }', { h: host, s: scope });
  }
  await Promise.all([revalidateGraphql('quota_scope'), revalidateGraphql('vfolder_list')]);
}
