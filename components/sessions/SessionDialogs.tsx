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
