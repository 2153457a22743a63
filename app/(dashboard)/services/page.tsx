import type { Metadata } from 'next';
import { ServiceList } from '@/components/services/ServiceList';

export const metadata: Metadata = { title: 'Services' };

export default function ServicesPage() {
  return <ServiceList />;
}
