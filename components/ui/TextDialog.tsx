'use client';
/**
 * The one-field dialog of the dashboard (a new directory, a rename, a move, an image tag): the action runs inside
 * the dialog with the value trimmed, and the field says what is wrong with the value before it is sent.
 */
import { useState } from 'react';
import DialogContentText from '@mui/material/DialogContentText';
import TextField from '@mui/material/TextField';
import { FormDialog } from './FormDialog';

export interface TextDialogProps {
  open: boolean;
  title: string;
  description?: string;
  label: string;
  initial: string;
  confirmLabel: string;
  /** Why the (trimmed, non-empty) value cannot be used, or null when it can. */
  problemOf?: (value: string) => string | null;
  helperText?: string;
  /** An empty value may be sent too. */
  optional?: boolean;
  /** The value must differ from `initial` before it can be sent. */
  mustChange?: boolean;
  maxLength?: number;
  onSubmit: (value: string) => Promise<unknown>;
  onClose: () => void;
}

export function TextDialog({ open, title, description, label, initial, confirmLabel, problemOf, helperText, optional, mustChange, maxLength, onSubmit, onClose }: TextDialogProps) {
  const [value, setValue] = useState(initial);
  const trimmed = value.trim();
  const problem = trimmed && problemOf ? problemOf(trimmed) : null;

  return (
    <FormDialog
      open={open}
      title={title}
      submitLabel={confirmLabel}
      submitDisabled={(!trimmed && !optional) || Boolean(problem) || (mustChange && trimmed === initial)}
      onOpen={() => setValue(initial)}
      onSubmit={async () => {
        await onSubmit(trimmed);
        onClose();
      }}
      onClose={onClose}
    >
      {description && <DialogContentText>{description}</DialogContentText>}
      <TextField
        label={label}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        autoFocus
        fullWidth
        error={Boolean(problem)}
        helperText={problem ?? helperText}
        slotProps={{ htmlInput: { autoComplete: 'off', spellCheck: false, maxLength } }}
      />
    </FormDialog>
  );
}
