/** Superadmins only: other admins get the 403 state, and the manager refuses them these operations anyway. */
import type { Metadata } from 'next';
import { ConfigView } from '@/components/admin/ConfigView';
import { Forbidden } from '@/components/ui/Forbidden';
import { sessionRole } from '../access';

export const metadata: Metadata = { title: 'Configuration' };

export default async function Page() {
  const role = await sessionRole();
  if (role !== 'superadmin') return <Forbidden need="superadmin" role={role} />;
  return <ConfigView />;
}
