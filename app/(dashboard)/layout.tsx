/** Every signed-in page: the session is checked on the server; without one the visitor goes to /login. */
import type { ReactNode } from 'react';
import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import { authOptions } from '@/app/lib/auth';
import { DashboardFrame } from '@/components/frame/DashboardFrame';

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await getServerSession(authOptions);
  if (!session) redirect('/login');
  const user = { email: session.user.email, name: session.user.name, role: session.role };
  return <DashboardFrame user={user}>{children}</DashboardFrame>;
}
