import type { Metadata } from 'next';
import { SessionLauncher } from '@/components/sessions/SessionLauncher';

export const metadata: Metadata = { title: 'New session' };

export default function NewSessionPage() {
  return <SessionLauncher />;
}
