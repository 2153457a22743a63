import type { Metadata } from 'next';
import { UserDetailView } from '@/components/admin/users/UserDetailView';

/** The email from the path, whether or not the router already decoded it. */
function emailOf(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function generateMetadata({ params }: { params: Promise<{ email: string }> }): Promise<Metadata> {
  return { title: emailOf((await params).email) };
}

export default async function UserPage({ params }: { params: Promise<{ email: string }> }) {
  return <UserDetailView email={emailOf((await params).email)} />;
}
