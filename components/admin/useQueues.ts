'use client';
/** Each scaling group's scheduling queue through GraphQL, refreshed every 5 s while shown. */
import { useGraphql } from '@/components/api/graphql';

export interface QueueEntry {
  position: number;
  session_name: string;
  user_email: string | null;
  access_key: string;
  priority: number;
  created_at: string;
  status_info: string;
}

export interface Queue {
  scaling_group: string;
  scheduler: string;
  entries: QueueEntry[];
  not_ready: number;
  per_user: { access_key: string; user_email: string | null; in_line: number; not_ready: number }[];
  head_needs: string | null;
  largest_free: string;
}

const QUERY = `{ scheduling_queues(limit: 100) { scaling_group scheduler not_ready head_needs largest_free
  entries { position session_name user_email access_key priority created_at status_info }
  per_user { access_key user_email in_line not_ready } } }`;

export function useQueues() {
  return useGraphql<{ scheduling_queues: Queue[] }>(QUERY, undefined, { refreshInterval: 5000 });
}
