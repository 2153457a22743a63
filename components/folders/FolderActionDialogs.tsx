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

/** The two actions confirmed first: what each calls, what it says when done, and what the person agrees to. */
const CONFIRMED = {
  delete: {
    verb: 'Delete',
    run: deleteFolder,
    done: (name: string) => `Deleted ${name}`,
    consequence: () =>
      'The folder moves to the trash with all its files, and everyone it was shared with loses it. Its name is free again. A folder mounted in a running session cannot be deleted until that session ends.',
  },
  leave: {
    verb: 'Leave',
    run: leaveFolder,
    done: (name: string) => `You left ${name}`,
    consequence: (folder: FolderSummary | undefined) =>
      `You lose access to it; its files stay with ${folder?.user_email ?? 'its owner'}. To get it back, ask them to invite you again.`,
  },
};

export function FolderActionDialogs({ action, onDone, onClose }: { action: FolderAction; onDone: (message: string) => Promise<unknown>; onClose: () => void }) {
  const folder = action?.folder;
  const name = folder?.name ?? '';
  const confirmed = CONFIRMED[action?.kind === 'leave' ? 'leave' : 'delete'];
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
        open={action?.kind === 'delete' || action?.kind === 'leave'}
        title={`${confirmed.verb} ${name}?`}
        confirmLabel={confirmed.verb}
        danger
        onConfirm={async () => {
          await confirmed.run(folder!.id);
          await onDone(confirmed.done(name));
        }}
        onClose={onClose}
      >
        <Typography>{confirmed.consequence(folder)}</Typography>
      </ConfirmDialog>
    </>
  );
}
