import type { Metadata } from 'next';
import { ImagesView } from '@/components/admin/images/ImagesView';

export const metadata: Metadata = { title: 'Images' };

export default function Page() {
  return <ImagesView />;
}
