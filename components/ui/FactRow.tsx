'use client';
/** A label and its value on one line, the label in a fixed column so a list of them lines up (summary, session). */
import type { ReactNode } from 'react';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

export function FactRow({ label, children, testId, labelWidth, py }: { label: string; children: ReactNode; testId?: string; labelWidth: number; py: number }) {
  return (
    <Stack direction="row" spacing={2} sx={{ py }}>
      <Typography variant="body2" color="text.secondary" sx={{ width: labelWidth, flexShrink: 0 }}>
        {label}
      </Typography>
      <Typography variant="body2" component="div" data-testid={testId} sx={{ minWidth: 0, overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </Stack>
  );
}
