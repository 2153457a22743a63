'use client';
/** The session page's one-field dialogs — rename, save as image; the manager's refusal is shown in place. */
import { TextDialog } from '@/components/ui/TextDialog';
import { sessionNameProblem } from './model';

export function RenameDialog({ open, current, onRename, onClose }: { open: boolean; current: string; onRename: (name: string) => Promise<unknown>; onClose: () => void }) {
  return (
    <TextDialog
      open={open}
      title="Rename session"
      label="Name"
      initial={current}
      confirmLabel="Rename"
      problemOf={(name) => (name === current ? null : sessionNameProblem(name))}
      helperText="Only a running session can be renamed."
      mustChange
      maxLength={64}
      onSubmit={onRename}
      onClose={onClose}
    />
  );
}

/** Docker's rule for an image tag. */
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * "Save as image": commits the session's /home/work into an image of the user's own and waits until it is written,
 * so that when the dialog closes the image is in the launcher (under "Your images").
 */
export function CommitDialog({ open, onCommit, onClose }: { open: boolean; onCommit: (tag: string) => Promise<unknown>; onClose: () => void }) {
  return (
    <TextDialog
      open={open}
      title="Save as image"
      label="Tag"
      initial=""
      confirmLabel="Save"
      problemOf={(tag) => (TAG.test(tag) ? null : 'Letters, digits, _ . and - only, at most 128, not starting with . or -')}
      helperText="Optional. The image keeps the files in /home/work and launches like the session’s own image."
      optional
      maxLength={128}
      onSubmit={onCommit}
      onClose={onClose}
    />
  );
}
