import type { Metadata } from 'next';
import { ProjectsView } from '@/components/admin/projects/ProjectsView';

export const metadata: Metadata = { title: 'Projects and domains' };

export default function Page() {
  return <ProjectsView />;
}
