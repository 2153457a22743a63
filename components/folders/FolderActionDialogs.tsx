'use client';
/**
 * What can be done to a whole folder from the list: rename or delete one you manage, leave one shared with you.
 * Deleting and leaving are confirmed first; each dialog shows the manager's refusal in place.
 */
import Typography from '@mui/material/Typography';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { TextDialog } from '@/components/ui/TextDialog';
import { deleteFolder, folderNameProblem, leaveFolder, renameFolder, type FolderSummary } from './useFolders';

export type FolderAction = { kind: 'rename' | 'delete' | 'leave'; folder: FolderSummary } | null;

export function FolderActionDialogs({ action, onDone, onClose }: { action: FolderAction; onDone: (message: string) => Promise<unknown>; onClose: () => void }) {
  const folder = action?.folder;
  const name = folder?.name ?? '';
  return (
    <>
      <TextDialog
        open={action?.kind === 'rename'}
        title={`Rename ${name}`}
        label="New name"
        initial={name}
        confirmLabel="Rename"
        problemOf={folderNameProblem}
        helperText="Sessions started from now on mount it under the new name."
        onSubmit={async (newName) => {
          await renameFolder(folder!.id, newName);
          await onDone(`Renamed ${name} to ${newName}`);
        }}
        onClose={onClose}
      />
      <ConfirmDialog
        open={action?.kind === 'delete'}
        title={`Delete ${name}?`}
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await deleteFolder(folder!.id);
          await onDone(`Deleted ${name}`);
        }}
        onClose={onClose}
      >
        <Typography>
          The folder moves to the trash with all its files, and everyone it was shared with loses it. Its name is free again. A folder mounted in a running
          session cannot be deleted until that session ends.
        </Typography>
      </ConfirmDialog>
      <ConfirmDialog
        open={action?.kind === 'leave'}
        title={`Leave ${name}?`}
        confirmLabel="Leave"
        danger
        onConfirm={async () => {
          await leaveFolder(folder!.id);
          await onDone(`You left ${name}`);
        }}
        onClose={onClose}
      >
        <Typography>
          You lose access to it; its files stay with {folder?.user_email ?? 'its owner'}. To get it back, ask them to invite you again.
        </Typography>
      </ConfirmDialog>
    </>
  );
}
