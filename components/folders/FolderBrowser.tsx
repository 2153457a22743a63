'use client';
/**
 * One folder: its files with breadcrumbs, new directories, rename, move and delete (several at once), resumable
 * uploads with progress and speed, downloads of files and of directories as zips, sharing and cloning. This file
 * holds the page's state (directory, selection, open dialog); the parts draw themselves (browser/).
 */
import { useState } from 'react';
import Stack from '@mui/material/Stack';
import { ProblemAlert } from '@/components/ui/feedback';
import { useToast } from '@/components/ui/useToast';
import { CloneDialog } from './CloneDialog';
import { ShareDialog } from './ShareDialog';
import { downloadEntry, joinPath, useFolder, useFolderFiles } from './useFolders';
import { EntryDialogs, type EntryDialog } from './browser/EntryDialogs';
import { FileTable } from './browser/FileTable';
import { FolderHeader } from './browser/FolderHeader';
import { UploadPanel } from './browser/UploadPanel';
import { useUploads } from './browser/useUploads';

type Dialog = EntryDialog | { kind: 'share' } | { kind: 'clone' } | null;

export function FolderBrowser({ folderId }: { folderId: string }) {
  const folder = useFolder(folderId);
  const [dir, setDir] = useState('');
  const files = useFolderFiles(folderId, dir);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [toast, showToast] = useToast();

  const info = folder.data;
  const entries = [...(files.data?.items ?? [])].sort((a, b) => Number(b.type === 'DIRECTORY') - Number(a.type === 'DIRECTORY') || a.name.localeCompare(b.name));
  const selectedNames = entries.filter((e) => selected.has(e.name)).map((e) => e.name);

  async function refresh() {
    await Promise.all([files.mutate(), folder.mutate()]);
  }
  const uploads = useUploads(folderId, dir, { onFileDone: () => files.mutate(), onEnd: refresh, onError: setActionError });

  function openDir(path: string) {
    setDir(path);
    setSelected(new Set());
  }

  async function download(path: string, isDir: boolean) {
    setActionError(null);
    try {
      await downloadEntry(folderId, path, isDir);
    } catch (err) {
      setActionError(err);
    }
  }

  return (
    <Stack spacing={2}>
      <FolderHeader folder={folder} uploading={uploads.uploading} onDialog={(kind) => setDialog({ kind })} onUpload={(list) => void uploads.upload(list)} />
      {uploads.uploads && <UploadPanel uploads={uploads.uploads} done={!uploads.uploading} onCancel={uploads.cancel} onDismiss={uploads.dismiss} />}
      <ProblemAlert error={actionError} onClose={() => setActionError(null)} testId="folder-problem" />
      <FileTable
        files={files}
        entries={entries}
        dir={dir}
        root={info?.name || 'Folder'}
        writable={info ? info.permission !== 'ro' : false}
        selected={selected}
        onSelect={setSelected}
        onOpenDir={openDir}
        onRefresh={() => void refresh()}
        onDropFiles={(list) => void uploads.upload(list)}
        onDownload={(entry) => void download(joinPath(dir, entry.name), entry.type === 'DIRECTORY')}
        onRename={(entry) => setDialog({ kind: 'rename', entry })}
        onMove={() => setDialog({ kind: 'move' })}
        onDelete={() => setDialog({ kind: 'delete' })}
      />
      <EntryDialogs
        folderId={folderId}
        dir={dir}
        dialog={dialog?.kind === 'share' || dialog?.kind === 'clone' ? null : dialog}
        selectedNames={selectedNames}
        onChanged={async (clearSelection) => {
          if (clearSelection) setSelected(new Set());
          await refresh();
        }}
        onDeleted={showToast}
        onClose={() => setDialog(null)}
      />
      {info && <ShareDialog open={dialog?.kind === 'share'} folderId={folderId} folderName={info.name} onClose={() => setDialog(null)} />}
      {info && <CloneDialog open={dialog?.kind === 'clone'} folder={info} onClose={() => setDialog(null)} />}
      {toast}
    </Stack>
  );
}
