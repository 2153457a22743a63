import type { Metadata } from 'next';
import { SWRConfig } from 'swr';
import { managerDataForPage, pageFallback } from '@/app/lib/page-data';
import { FolderList } from '@/components/folders/FolderList';
import { FOLDER_LIST } from '@/components/folders/folderListQuery';
import type { FolderSummary } from '@/components/folders/useFolders';

export const metadata: Metadata = { title: 'Folders' };

/** The list is read here, so the HTML holds its first rows; the list's hook takes it as its data. */
export default async function FoldersPage() {
  const folders = await managerDataForPage<FolderSummary[]>('GET', FOLDER_LIST);
  return (
    <SWRConfig value={{ fallback: pageFallback(FOLDER_LIST, folders) }}>
      <FolderList />
    </SWRConfig>
  );
}
