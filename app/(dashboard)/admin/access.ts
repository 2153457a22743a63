/** Server-side only: the signed-in user's role, as the session check saw it, for the admin pages' own refusals. */
import { getServerSession } from 'next-auth';
import { authOptions } from '@/app/lib/auth';

export async function sessionRole(): Promise<string> {
  const session = await getServerSession(authOptions);
  return session?.role ?? 'user';
}
