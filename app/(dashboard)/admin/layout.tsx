/**
 * The administration area. The role is checked on the server: users who are not admins get the 403 state and
 * none of the admin pages (their data calls would be refused by the manager anyway).
 */
import type { ReactNode } from 'react';
import { AdminTabs } from '@/components/admin/AdminTabs';
import { isAdminRole } from '@/components/admin/sections';
import { Forbidden } from '@/components/ui/Forbidden';
import { sessionRole } from './access';

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const role = await sessionRole();
  if (!isAdminRole(role)) return <Forbidden need="admin" role={role} />;
  return (
    <>
      <AdminTabs role={role} />
      {children}
    </>
  );
}
