/**
 * The session list's one query, its SWR key and the page's first view: shared by the browser's hook
 * (./useSessions) and the page's server render (app/(dashboard)/sessions/page.tsx), which reads the first page
 * with the user's keys and hands it over as the hook's data, so the HTML already holds the rows. No 'use client':
 * the server calls these.
 */
import { nameFilter } from '@/components/api/listFilter';
import { FINISHED_STATUSES, LIVE_STATUSES, type SessionSummary } from './model';

export type SessionFilter = 'running' | 'finished';

export interface SessionListView {
  filter: SessionFilter;
  /** Text the name must contain (any case). */
  search: string;
  page: number;
  pageSize: number;
  /** The manager's order, e.g. "-created_at" (newest first) or "+name". */
  order: string;
}

export interface SessionPage {
  total_count: number;
  items: SessionSummary[];
}

export const SESSION_LIST_QUERY = `query($status: String, $limit: Int, $offset: Int, $order: String, $filter: String) {
  compute_session_list(status: $status, limit: $limit, offset: $offset, order: $order, filter: $filter) {
    total_count
    items { id name type status status_info queue_position estimated_start image created_at terminated_at occupied_slots cluster_size group_name }
  }
}`;

export const PAGE_SIZES = [25, 50, 100];

/** The sortable columns; `when` is the start of a running session and the end of a finished one. */
export type SortKey = 'name' | 'status' | 'image' | 'when';
export type Sort = { key: SortKey; desc: boolean };

/** The manager's order for a sort: `when` is when a running session started, or when a finished one ended. */
export function orderOf(sort: Sort, filter: SessionFilter): string {
  const field = sort.key === 'when' ? (filter === 'running' ? 'created_at' : 'terminated_at') : sort.key;
  return `${sort.desc ? '-' : '+'}${field}`;
}

export const FIRST_FILTER: SessionFilter = 'running';
export const FIRST_SORT: Sort = { key: 'when', desc: true };
/** What the page shows before the user changes anything: running sessions, newest first, the first page. */
export const FIRST_VIEW: SessionListView = { filter: FIRST_FILTER, search: '', page: 0, pageSize: PAGE_SIZES[0], order: orderOf(FIRST_SORT, FIRST_FILTER) };

export const sessionListKey = ({ filter, search, page, pageSize, order }: SessionListView) => ['sessions', filter, search, page, pageSize, order];

export function sessionListVariables({ filter, search, page, pageSize, order }: SessionListView): Record<string, unknown> {
  const statuses = filter === 'running' ? LIVE_STATUSES : FINISHED_STATUSES;
  return { status: statuses.join(','), limit: pageSize, offset: page * pageSize, order, filter: nameFilter(search) };
}
