import type { Metadata } from 'next';
import { ResourcePoliciesView } from '@/components/admin/policies/ResourcePoliciesView';

export const metadata: Metadata = { title: 'Resource policies' };

export default function Page() {
  return <ResourcePoliciesView />;
}
