'use client';
/**
 * The button that runs a form's or card's action: while the action runs (`busy`) it cannot be pressed again and says
 * what is happening ("Saving…") in place of its label. Contained unless a variant is given.
 */
import Button, { type ButtonProps } from '@mui/material/Button';

export function BusyButton({ busy, busyLabel, disabled, children, ...props }: ButtonProps & { busy: boolean; busyLabel: string }) {
  return (
    <Button variant="contained" {...props} disabled={busy || disabled}>
      {busy ? busyLabel : children}
    </Button>
  );
}
