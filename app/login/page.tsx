import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import { authOptions, DEFAULT_DOMAIN } from '@/app/lib/auth';
import { loginChoices } from '@/app/lib/oidc';
import { LoginForm } from '@/components/auth/LoginForm';
import { signupEnabled } from '@/components/auth/signup-flag';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ error?: string | string[] }> }) {
  if (await getServerSession(authOptions)) redirect('/');
  const { error } = await searchParams;
  // Read at request time (this page is dynamic): one build serves a dashboard with or without single sign-on.
  return (
    <LoginForm
      defaultDomain={DEFAULT_DOMAIN}
      initialError={typeof error === 'string' ? error : undefined}
      signupEnabled={signupEnabled()}
      choices={loginChoices()}
    />
  );
}
