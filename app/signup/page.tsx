/** Self-signup, only when the operator enabled it (BERTH_ALLOW_SIGNUP, read on the server for each request). */
import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { connection } from 'next/server';
import { getServerSession } from 'next-auth';
import { authOptions, DEFAULT_DOMAIN } from '@/app/lib/auth';
import { SignupForm } from '@/components/auth/SignupForm';
import { signupEnabled } from '@/components/auth/signup-flag';

export const metadata: Metadata = { title: 'Create an account' };

export default async function SignupPage() {
  await connection();
  if (!signupEnabled()) notFound();
  if (await getServerSession(authOptions)) redirect('/');
  return <SignupForm defaultDomain={DEFAULT_DOMAIN} />;
}
