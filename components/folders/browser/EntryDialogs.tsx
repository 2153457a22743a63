'use client';
/**
 * The dialogs that change entries of one directory: a new directory, rename one entry, and move or delete the
 * selected ones. Each runs its request, then `onChanged` (clear the selection, refresh the listing).
 */
import Typography from '@mui/material/Typography';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { TextDialog } from '@/components/ui/TextDialog';
import { deleteEntries, joinPath, makeDirectory, moveEntry, renameEntry, type FileEntry } from '../useFolders';

export type EntryDialog = { kind: 'mkdir' } | { kind: 'rename'; entry: FileEntry } | { kind: 'move' } | { kind: 'delete' };

export function EntryDialogs({
  folderId,
  dir,
  dialog,
  selectedNames,
  onChanged,
  onDeleted,
  onClose,
}: {
  folderId: string;
  dir: string;
  dialog: EntryDialog | null;
  selectedNames: string[];
  onChanged: (clearSelection: boolean) => Promise<void>;
  onDeleted: (what: string) => void;
  onClose: () => void;
}) {
  const what = selectedNames.length === 1 ? selectedNames[0] : `${selectedNames.length} items`;
  return (
    <>
      <TextDialog
        open={dialog?.kind === 'mkdir'}
        title="New directory"
        label="Name"
        initial=""
        confirmLabel="Create"
        description={dir ? `Inside ${dir}. Use slashes to create nested directories.` : 'Use slashes to create nested directories.'}
        onSubmit={async (name) => {
          await makeDirectory(folderId, joinPath(dir, name));
          await onChanged(false);
        }}
        onClose={onClose}
      />
      <TextDialog
        open={dialog?.kind === 'rename'}
        title={dialog?.kind === 'rename' ? `Rename ${dialog.entry.name}` : 'Rename'}
        label="New name"
        initial={dialog?.kind === 'rename' ? dialog.entry.name : ''}
        confirmLabel="Rename"
        onSubmit={async (name) => {
          if (dialog?.kind !== 'rename') return;
          await renameEntry(folderId, joinPath(dir, dialog.entry.name), name);
          await onChanged(true);
        }}
        onClose={onClose}
      />
      <TextDialog
        open={dialog?.kind === 'move'}
        title={`Move ${what}`}
        label="Destination directory"
        description="A path from the top of the folder; leave it as / to move to the top. Nothing is overwritten."
        initial={dir ? `/${dir}` : '/'}
        confirmLabel="Move"
        onSubmit={async (destination) => {
          const target = destination.replace(/^\/+|\/+$/g, '');
          for (const name of selectedNames) await moveEntry(folderId, joinPath(dir, name), joinPath(target, name));
          await onChanged(true);
        }}
        onClose={onClose}
      />
      <ConfirmDialog
        open={dialog?.kind === 'delete'}
        title={`Delete ${what}?`}
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await deleteEntries(
            folderId,
            selectedNames.map((name) => joinPath(dir, name)),
          );
          await onChanged(true);
          onDeleted(`Deleted ${what}`);
        }}
        onClose={onClose}
      >
        <Typography>{selectedNames.length === 1 ? 'It is' : 'They are'} removed for good, directories with everything in them. This cannot be undone.</Typography>
      </ConfirmDialog>
    </>
  );
}
