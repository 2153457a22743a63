import type { Metadata } from 'next';
import { SWRConfig } from 'swr';
import { graphqlForPage, pageFallback } from '@/app/lib/page-data';
import { SessionList } from '@/components/sessions/SessionList';
import { FIRST_VIEW, SESSION_LIST_QUERY, sessionListKey, sessionListVariables, type SessionPage } from '@/components/sessions/sessionListQuery';

export const metadata: Metadata = { title: 'Sessions' };

/** The first page of the list is read here, so the HTML holds its rows; the list's hook takes it as its data. */
export default async function SessionsPage() {
  const first = await graphqlForPage<{ compute_session_list: SessionPage }>(SESSION_LIST_QUERY, sessionListVariables(FIRST_VIEW));
  return (
    <SWRConfig value={{ fallback: pageFallback(sessionListKey(FIRST_VIEW), first?.compute_session_list) }}>
      <SessionList />
    </SWRConfig>
  );
}
