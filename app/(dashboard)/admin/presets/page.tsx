import type { Metadata } from 'next';
import { PresetsView } from '@/components/admin/PresetsView';

export const metadata: Metadata = { title: 'Resource presets' };

export default function Page() {
  return <PresetsView />;
}
