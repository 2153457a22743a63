/**
 * The all-sessions page's filters as the manager's GraphQL list filter (server/graphql/filter.ts): each non-empty
 * box narrows the list, text matched anywhere (ilike), the agent exactly. Pure, for unit tests.
 */
import { containsPattern as contains, filterString } from '../../api/listFilter';

export interface SessionFilters {
  user: string;
  project: string;
  agent: string;
  image: string;
  name: string;
}

export const NO_FILTERS: SessionFilters = { user: '', project: '', agent: '', image: '', name: '' };

export function sessionFilter(f: SessionFilters): string | null {
  const parts: string[] = [];
  if (f.user.trim()) parts.push(`user_email ilike ${contains(f.user.trim())}`);
  if (f.project.trim()) parts.push(`group_name ilike ${contains(f.project.trim())}`);
  if (f.agent.trim()) parts.push(`agent_id == ${filterString(f.agent.trim())}`);
  if (f.image.trim()) parts.push(`image ilike ${contains(f.image.trim())}`);
  if (f.name.trim()) parts.push(`name ilike ${contains(f.name.trim())}`);
  return parts.length ? parts.join(' & ') : null;
}

/** A sort as the manager's order: "-created_at" for newest first. */
export function sessionOrder(sort: { key: string; direction: 'asc' | 'desc' } | null): string {
  if (!sort) return '-created_at';
  return `${sort.direction === 'desc' ? '-' : '+'}${sort.key}`;
}
