/** Superadmins only: other admins get the 403 state, and the manager refuses them these operations anyway. */
import type { Metadata } from 'next';
import { ManagerView } from '@/components/admin/ManagerView';
import { Forbidden } from '@/components/ui/Forbidden';
import { sessionRole } from '../access';

export const metadata: Metadata = { title: 'Manager' };

export default async function Page() {
  const role = await sessionRole();
  if (role !== 'superadmin') return <Forbidden need="superadmin" role={role} />;
  return <ManagerView />;
}
