import type { Metadata } from 'next';
import { SessionList } from '@/components/sessions/SessionList';

export const metadata: Metadata = { title: 'Sessions' };

export default function SessionsPage() {
  return <SessionList />;
}
