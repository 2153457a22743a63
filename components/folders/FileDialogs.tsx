'use client';
/** The small dialogs of the file browser: one text field (new directory, rename, move), run inside the dialog. */
import { useEffect, useState, type FormEvent } from 'react';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { ProblemAlert } from '@/components/admin/ui/feedback';

export interface TextDialogProps {
  open: boolean;
  title: string;
  description?: string;
  label: string;
  initial: string;
  confirmLabel: string;
  onSubmit: (value: string) => Promise<unknown>;
  onClose: () => void;
}

export function TextDialog({ open, title, description, label, initial, confirmLabel, onSubmit, onClose }: TextDialogProps) {
  const [value, setValue] = useState(initial);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (open) {
      setValue(initial);
      setError(null);
    }
  }, [open, initial]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!value.trim()) return;
    setPending(true);
    setError(null);
    try {
      await onSubmit(value.trim());
      onClose();
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  }

  return (
    <Dialog open={open} onClose={pending ? undefined : onClose} maxWidth="xs" fullWidth aria-labelledby="text-dialog-title">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <DialogTitle id="text-dialog-title">{title}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {description && <DialogContentText>{description}</DialogContentText>}
            <TextField label={label} value={value} onChange={(e) => setValue(e.target.value)} autoFocus fullWidth slotProps={{ htmlInput: { autoComplete: 'off' } }} />
            <ProblemAlert error={error} />
          </Stack>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={pending || !value.trim()}>
            {confirmLabel}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
