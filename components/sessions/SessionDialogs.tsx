'use client';
/** Confirmation and rename dialogs of the session page; each shows the manager's refusal in place. */
import { useState, type FormEvent, type ReactNode } from 'react';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import type { ManagerError } from '@/components/api/problem';
import { ProblemAlert } from './common';
import { sessionNameProblem } from './model';

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  destructive,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  destructive?: boolean;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ManagerError | null>(null);

  async function confirm(): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (err) {
      setError(err as ManagerError);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onClose={busy ? undefined : onClose} maxWidth="xs" fullWidth slotProps={{ transition: { onExited: () => setError(null) } }}>
      <DialogTitle>{title}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <DialogContentText component="div">{children}</DialogContentText>
          {error && <ProblemAlert error={error} />}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button
          onClick={() => void confirm()}
          variant="contained"
          color={destructive ? 'error' : 'primary'}
          disabled={busy}
          startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}
          autoFocus
        >
          {confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export function RenameDialog({ open, current, onRename, onClose }: { open: boolean; current: string; onRename: (name: string) => Promise<unknown>; onClose: () => void }) {
  const [name, setName] = useState(current);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ManagerError | null>(null);
  const problem = name === current ? null : sessionNameProblem(name);

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    if (problem || name === current) return;
    setBusy(true);
    setError(null);
    try {
      await onRename(name);
      onClose();
    } catch (err) {
      setError(err as ManagerError);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : onClose}
      maxWidth="xs"
      fullWidth
      slotProps={{
        transition: {
          onEnter: () => setName(current),
          onExited: () => setError(null),
        },
      }}
    >
      <form onSubmit={(e) => void submit(e)}>
        <DialogTitle>Rename session</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
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
            {error && <ProblemAlert error={error} />}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={busy || Boolean(problem) || name === current}>
            Rename
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
