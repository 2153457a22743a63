import type { Metadata } from 'next';
import { FolderBrowser } from '@/components/folders/FolderBrowser';

export const metadata: Metadata = { title: 'Folder' };

export default async function FolderPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <FolderBrowser folderId={id} />;
}
