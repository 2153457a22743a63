import type { Metadata } from 'next';
import { StorageView } from '@/components/admin/storage/StorageView';

export const metadata: Metadata = { title: 'Storage' };

export default function Page() {
  return <StorageView />;
}
