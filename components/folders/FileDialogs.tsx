'use client';
/** The one-field dialog of the folder pages (new directory, rename, move), run inside the dialog. */
import { useState } from 'react';
import DialogContentText from '@mui/material/DialogContentText';
import TextField from '@mui/material/TextField';
import { FormDialog } from '@/components/ui/FormDialog';

export interface TextDialogProps {
  open: boolean;
  title: string;
  description?: string;
  label: string;
  initial: string;
  confirmLabel: string;
  /** Why the value cannot be used, or null when it can. */
  problemOf?: (value: string) => string | null;
  helperText?: string;
  onSubmit: (value: string) => Promise<unknown>;
  onClose: () => void;
}

export function TextDialog({ open, title, description, label, initial, confirmLabel, problemOf, helperText, onSubmit, onClose }: TextDialogProps) {
  const [value, setValue] = useState(initial);
  const trimmed = value.trim();
  const problem = trimmed && problemOf ? problemOf(trimmed) : null;

  return (
    <FormDialog
      open={open}
      title={title}
      submitLabel={confirmLabel}
      submitDisabled={!trimmed || Boolean(problem)}
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
        slotProps={{ htmlInput: { autoComplete: 'off' } }}
      />
    </FormDialog>
  );
}
