'use client';
/** The rename dialog of the session page; the manager's refusal is shown in place. */
import { useState } from 'react';
import TextField from '@mui/material/TextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { sessionNameProblem } from './model';

export function RenameDialog({ open, current, onRename, onClose }: { open: boolean; current: string; onRename: (name: string) => Promise<unknown>; onClose: () => void }) {
  const [name, setName] = useState(current);
  const problem = name === current ? null : sessionNameProblem(name);

  return (
    <FormDialog
      open={open}
      title="Rename session"
      submitLabel="Rename"
      submitDisabled={Boolean(problem) || name === current}
      onOpen={() => setName(current)}
      onSubmit={async () => {
        await onRename(name);
        onClose();
      }}
      onClose={onClose}
    >
      <TextField
        autoFocus
        fullWidth
        label="Name"
        value={name}
        onChange={(e) => setName(e.target.value.trim())}
        error={Boolean(problem)}
        helperText={problem ?? 'Only a running session can be renamed.'}
        slotProps={{ htmlInput: { maxLength: 64, spellCheck: false } }}
      />
    </FormDialog>
  );
}

/** Docker's rule for an image tag. */
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * "Save as image": commits the session's /home/work into an image of the user's own and waits until it is written,
 * so that when the dialog closes the image is in the launcher (under "Your images").
 */
export function CommitDialog({ open, onCommit, onClose }: { open: boolean; onCommit: (tag: string) => Promise<unknown>; onClose: () => void }) {
  const [tag, setTag] = useState('');
  const problem = tag && !TAG.test(tag) ? 'Letters, digits, _ . and - only, at most 128, not starting with . or -' : null;

  return (
    <FormDialog
      open={open}
      title="Save as image"
      submitLabel="Save"
      submitDisabled={Boolean(problem)}
      onOpen={() => setTag('')}
      onSubmit={async () => {
        await onCommit(tag);
        onClose();
      }}
      onClose={onClose}
    >
      <TextField
        autoFocus
        fullWidth
        label="Tag"
        value={tag}
        onChange={(e) => setTag(e.target.value.trim())}
        error={Boolean(problem)}
        helperText={problem ?? 'Optional. The image keeps the files in /home/work and launches like the session’s own image.'}
        slotProps={{ htmlInput: { maxLength: 128, spellCheck: false } }}
      />
    </FormDialog>
  );
}
