import type { Metadata } from 'next';
import { ScalingGroupsView } from '@/components/admin/ScalingGroupsView';

export const metadata: Metadata = { title: 'Scaling groups' };

export default function Page() {
  return <ScalingGroupsView />;
}
