'use client';
/**
 * Feedback at the bottom of the screen: a short confirmation ("Saved") or, with severity "error", the outcome of an
 * action that has no form to show it in (a bulk action's partial failure). Announced to screen readers.
 */
import { useCallback, useState, type ReactNode } from 'react';
import Alert, { type AlertColor } from '@mui/material/Alert';
import Snackbar from '@mui/material/Snackbar';

export function useToast(): [ReactNode, (message: string, severity?: AlertColor) => void] {
  const [message, setMessage] = useState<string | null>(null);
  const [severity, setSeverity] = useState<AlertColor>('success');
  const [open, setOpen] = useState(false);
  const show = useCallback((text: string, level: AlertColor = 'success') => {
    setMessage(text);
    setSeverity(level);
    setOpen(true);
  }, []);
  const element = (
    <Snackbar open={open} autoHideDuration={4000} onClose={() => setOpen(false)} anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}>
      <Alert severity={severity} variant="filled" onClose={() => setOpen(false)} role={severity === 'error' ? 'alert' : 'status'} data-testid="toast">
        {message}
      </Alert>
    </Snackbar>
  );
  return [element, show];
}
