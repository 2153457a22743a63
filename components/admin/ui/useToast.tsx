'use client';
/** A short confirmation at the bottom of the screen ("Saved"), announced to screen readers. */
import { useCallback, useState, type ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Snackbar from '@mui/material/Snackbar';

export function useToast(): [ReactNode, (message: string) => void] {
  const [message, setMessage] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const show = useCallback((text: string) => {
    setMessage(text);
    setOpen(true);
  }, []);
  const element = (
    <Snackbar open={open} autoHideDuration={4000} onClose={() => setOpen(false)} anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}>
      <Alert severity="success" variant="filled" onClose={() => setOpen(false)} role="status" data-testid="toast">
        {message}
      </Alert>
    </Snackbar>
  );
  return [element, show];
}
