import type { Metadata } from 'next';
import { ServiceView } from '@/components/services/ServiceView';

export const metadata: Metadata = { title: 'Service' };

export default async function ServicePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ServiceView serviceId={id} />;
}
