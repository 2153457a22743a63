'use client';
/**
 * The foot of a form on a page or card: the manager's problem when the action failed, then the form's buttons in a
 * row (the main one first), each as wide as its label.
 */
import type { ReactNode } from 'react';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { BusyButton } from './BusyButton';
import { ProblemAlert } from './feedback';

export function FormActions({ error, children }: { error: unknown; children: ReactNode }) {
  return (
    <>
      <ProblemAlert error={error} />
      <Stack direction="row" spacing={1}>
        {children}
      </Stack>
    </>
  );
}

/**
 * The foot of a card that edits one loaded value (an announcement, a script): save it, or discard the edits and go
 * back to what was loaded. Both wait until something changed; saving also waits until the value is valid.
 */
export function SaveOrDiscard({ error, saveLabel, busy, dirty, invalid, onSave, onDiscard }: { error: unknown; saveLabel: string; busy: boolean; dirty: boolean; invalid: boolean; onSave: () => void; onDiscard: () => void }) {
  return (
    <FormActions error={error}>
      <BusyButton onClick={onSave} busy={busy} busyLabel="Saving…" disabled={!dirty || invalid}>
        {saveLabel}
      </BusyButton>
      <Button onClick={onDiscard} disabled={busy || !dirty}>
        Discard changes
      </Button>
    </FormActions>
  );
}

/** The foot of a form with one action: the problem, then its submit button. */
export function SubmitActions({ error, label, busy, busyLabel, disabled }: { error: unknown; label: string; busy: boolean; busyLabel: string; disabled?: boolean }) {
  return (
    <FormActions error={error}>
      <BusyButton type="submit" busy={busy} busyLabel={busyLabel} disabled={disabled}>
        {label}
      </BusyButton>
    </FormActions>
  );
}
