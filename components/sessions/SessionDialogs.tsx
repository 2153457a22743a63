'use client';
/** The session page's dialogs that ask for one word — a new name, an image tag; the manager's refusal is shown in place. */
import { useState } from 'react';
import TextField from '@mui/material/TextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { sessionNameProblem } from './model';

interface OneWordDialogProps {
  open: boolean;
  title: string;
  submitLabel: string;
  label: string;
  /** What the field holds as the dialog opens. */
  initial: string;
  maxLength: number;
  problemOf: (word: string) => string | null;
  /** Under the field while it has no problem. */
  hint: string;
  /** The submit button waits until the word differs from `initial`. */
  mustChange?: boolean;
  onSubmit: (word: string) => Promise<unknown>;
  onClose: () => void;
}

/** A dialog asking for one word (spaces are dropped as they are typed) and running `onSubmit` with it. */
function OneWordDialog({ open, title, submitLabel, label, initial, maxLength, problemOf, hint, mustChange, onSubmit, onClose }: OneWordDialogProps) {
  const [word, setWord] = useState(initial);
  const problem = problemOf(word);

  return (
    <FormDialog
      open={open}
      title={title}
      submitLabel={submitLabel}
      submitDisabled={Boolean(problem) || (mustChange && word === initial)}
      onOpen={() => setWord(initial)}
      onSubmit={async () => {
        await onSubmit(word);
        onClose();
      }}
      onClose={onClose}
    >
      <TextField
        autoFocus
        fullWidth
        label={label}
        value={word}
        onChange={(e) => setWord(e.target.value.trim())}
        error={Boolean(problem)}
        helperText={problem ?? hint}
        slotProps={{ htmlInput: { maxLength, spellCheck: false } }}
      />
    </FormDialog>
  );
}

export function RenameDialog({ open, current, onRename, onClose }: { open: boolean; current: string; onRename: (name: string) => Promise<unknown>; onClose: () => void }) {
  return (
    <OneWordDialog
      open={open}
      title="Rename session"
      submitLabel="Rename"
      label="Name"
      initial={current}
      maxLength={64}
      problemOf={(name) => (name === current ? null : sessionNameProblem(name))}
      hint="Only a running session can be renamed."
      mustChange
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
    <OneWordDialog
      open={open}
      title="Save as image"
      submitLabel="Save"
      label="Tag"
      initial=""
      maxLength={128}
      problemOf={(tag) => (tag && !TAG.test(tag) ? 'Letters, digits, _ . and - only, at most 128, not starting with . or -' : null)}
      hint="Optional. The image keeps the files in /home/work and launches like the session’s own image."
      onSubmit={onCommit}
      onClose={onClose}
    />
  );
}
