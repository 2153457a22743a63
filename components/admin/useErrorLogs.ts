'use client';
/** Error logs clients reported (REST /logs/error, a page at a time), clearing one, and the emails of their users. */
import { filterString, useGraphql } from '@/components/api/graphql';
import { managerSend, useManager } from '@/components/api/useManager';

export interface ErrorLog {
  log_id: string;
  created_at: number;
  severity: string;
  source: string;
  user: string | null;
  is_read: boolean;
  message: string;
  context_lang: string;
  context_env: unknown;
  request_url: string | null;
  request_status: number | null;
  traceback: string | null;
  is_cleared?: boolean;
}

function logsPath(page: number, pageSize: number): string {
  return `/logs/error?${new URLSearchParams({ page_size: String(pageSize), page_no: String(page + 1) })}`;
}

/** Emails for the user ids on the page (one GraphQL query). */
export function useEmails(ids: string[]) {
  const unique = [...new Set(ids)].sort();
  const filter = unique.length ? `uuid in [${unique.map(filterString).join(', ')}]` : null;
  const { data } = useGraphql<{ user_list: { items: { uuid: string; email: string }[] } }>(
    filter ? 'query($filter: String) { user_list(limit: 100, offset: 0, filter: $filter) { items { uuid email } } }' : null,
    { filter },
    { revalidateOnFocus: false },
  );
  return new Map((data?.user_list.items ?? []).map((u) => [u.uuid, u.email]));
}

/** A page of logs, newest first; the page shown stays while the next loads, and new logs arrive every 30 s. */
export function useErrorLogs(page: number, pageSize: number) {
  return useManager<{ logs: ErrorLog[]; count: number }>(logsPath(page, pageSize), { keepPreviousData: true, refreshInterval: 30_000 });
}

export async function clearErrorLog(logId: string): Promise<void> {
  await managerSend('POST', `/logs/error/${encodeURIComponent(logId)}/clear`);
}
