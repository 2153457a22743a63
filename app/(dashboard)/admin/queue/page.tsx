/** Superadmins only: the queue view names every user's pending sessions (the manager refuses others anyway). */
import type { Metadata } from 'next';
import { QueueView } from '@/components/admin/QueueView';
import { Forbidden } from '@/components/ui/Forbidden';
import { sessionRole } from '../access';

export const metadata: Metadata = { title: 'Queue' };

export default async function Page() {
  const role = await sessionRole();
  if (role !== 'superadmin') return <Forbidden need="superadmin" role={role} />;
  return <QueueView />;
}
