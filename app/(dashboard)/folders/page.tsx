import type { Metadata } from 'next';
import { FolderList } from '@/components/folders/FolderList';

export const metadata: Metadata = { title: 'Folders' };

export default function FoldersPage() {
  return <FolderList />;
}
