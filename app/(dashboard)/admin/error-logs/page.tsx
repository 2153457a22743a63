import type { Metadata } from 'next';
import { ErrorLogsView } from '@/components/admin/ErrorLogsView';

export const metadata: Metadata = { title: 'Error logs' };

export default function Page() {
  return <ErrorLogsView />;
}
