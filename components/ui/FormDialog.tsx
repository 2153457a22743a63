'use client';
/**
 * The one shell of the dashboard's dialogs that run an action: a form (Enter submits), its fields, the manager's
 * problem shown in place when the action fails, Cancel and the submit button. The action runs inside the dialog
 * so a refusal keeps what the person typed; the caller decides what success does (close, show a result, move on).
 */
import { useId, type FormEvent, type ReactNode } from 'react';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import { ProblemAlert } from './feedback';
import { useSending } from './useSending';

export interface FormDialogProps {
  open: boolean;
  title: ReactNode;
  children: ReactNode;
  submitLabel: string;
  /** Red submit button, for destructive actions. */
  danger?: boolean;
  /** Disables the submit button (e.g. until the fields are valid). */
  submitDisabled?: boolean;
  /** No submit button: the dialog shows an outcome rather than a form. */
  hideSubmit?: boolean;
  cancelLabel?: string;
  maxWidth?: 'xs' | 'sm' | 'md';
  /** Called as the dialog opens, before it is painted: reset the fields here. */
  onOpen?: () => void;
  onSubmit: () => Promise<unknown>;
  onClose: () => void;
}

export function FormDialog({
  open,
  title,
  children,
  submitLabel,
  danger,
  submitDisabled,
  hideSubmit,
  cancelLabel = 'Cancel',
  maxWidth = 'xs',
  onOpen,
  onSubmit,
  onClose,
}: FormDialogProps) {
  const titleId = useId();
  const { pending, error, setError, send } = useSending();

  async function submit(event: FormEvent) {
    event.preventDefault();
    // React bubbles events through portals: a form around the dialog's opener must not see this submit.
    event.stopPropagation();
    if (pending || submitDisabled || hideSubmit) return;
    await send(onSubmit);
  }

  return (
    <Dialog
      open={open}
      onClose={pending ? undefined : onClose}
      maxWidth={maxWidth}
      fullWidth
      aria-labelledby={titleId}
      slotProps={{
        transition: {
          onEnter: () => {
            setError(null);
            onOpen?.();
          },
        },
      }}
    >
      <form onSubmit={(e) => void submit(e)} noValidate>
        <DialogTitle id={titleId}>{title}</DialogTitle>
        <DialogContent>
          <Stack spacing={2.5} sx={{ pt: 1 }}>
            {children}
            <ProblemAlert error={error} />
          </Stack>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={onClose} disabled={pending}>
            {cancelLabel}
          </Button>
          {!hideSubmit && (
            <Button
              type="submit"
              variant="contained"
              color={danger ? 'error' : 'primary'}
              disabled={pending || submitDisabled}
              startIcon={pending ? <CircularProgress size={16} color="inherit" /> : undefined}
            >
              {submitLabel}
            </Button>
          )}
        </DialogActions>
      </form>
    </Dialog>
  );
}
