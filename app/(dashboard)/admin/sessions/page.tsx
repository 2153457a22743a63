import { Suspense } from 'react';
import type { Metadata } from 'next';
import { AllSessionsView } from '@/components/admin/sessions/AllSessionsView';

export const metadata: Metadata = { title: 'All sessions' };

export default function Page() {
  // The view reads its filters from the URL (useSearchParams), which needs a Suspense boundary.
  return (
    <Suspense>
      <AllSessionsView />
    </Suspense>
  );
}
