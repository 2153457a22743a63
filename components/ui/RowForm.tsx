'use client';
/**
 * A short form in one row on wide screens — its field(s), then its button, the button lined up with the field's box
 * rather than its helper text — and stacked on narrow screens. Enter submits; the fields check themselves.
 */
import type { FormEvent, ReactNode } from 'react';
import Stack from '@mui/material/Stack';

export function RowForm({ onSubmit, children }: { onSubmit: (event: FormEvent<HTMLFormElement>) => void; children: ReactNode }) {
  return (
    <Stack
      component="form"
      direction={{ xs: 'column', sm: 'row' }}
      spacing={2}
      onSubmit={onSubmit}
      noValidate
      sx={{ alignItems: { sm: 'flex-start' }, '& > .MuiButton-root': { mt: { sm: 1 } } }}
    >
      {children}
    </Stack>
  );
}
