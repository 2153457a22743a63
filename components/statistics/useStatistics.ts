'use client';
/** The statistics page's data: the caller's (or the cluster's) 30 days of bins, and a period's usage per project. */
import { useManager } from '@/components/api/useManager';
import { compactDate, type ProjectUsage, type StatBin } from './stats';

/** Bins change only as sessions end: no refetch on focus. */
const QUIET = { revalidateOnFocus: false };

export function useUserStats() {
  return useManager<StatBin[]>('/resource/stats/user/month', QUIET);
}

/** The whole cluster's bins; `enabled` only for superadmins (the manager refuses others with 403). */
export function useClusterStats(enabled: boolean) {
  return useManager<StatBin[]>(enabled ? '/resource/stats/admin/month' : null, QUIET);
}

/** Usage per project between two dates (YYYY-MM-DD, end included); superadmins only. */
export function usePeriodUsage(enabled: boolean, start: string, end: string) {
  const query = new URLSearchParams({ start_date: compactDate(start), end_date: compactDate(end) });
  return useManager<ProjectUsage[]>(enabled && start && end ? `/resource/usage/period?${query}` : null, QUIET);
}
