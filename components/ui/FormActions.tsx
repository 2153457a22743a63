'use client';
/**
 * The foot of a form on a page or card: the manager's problem when the action failed, then the form's buttons in a
 * row (the main one first), each as wide as its label.
 */
import type { ReactNode } from 'react';
import Stack from '@mui/material/Stack';
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
