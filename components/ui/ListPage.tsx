'use client';
/**
 * A page of things the person creates (folders, model services): its header with the "New …" button, and the
 * page's parts in one column below. `children` gets the same button, for the empty state of the list.
 */
import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { AddIcon } from '@/components/frame/icons';
import { PageHeader } from './PageHeader';

export function ListPage({ title, description, newLabel, onNew, children }: { title: string; description: string; newLabel: string; onNew: () => void; children: (newButton: ReactNode) => ReactNode }) {
  const newButton = (
    <Button variant="contained" startIcon={<AddIcon />} onClick={onNew}>
      {newLabel}
    </Button>
  );
  return (
    <Box>
      <PageHeader title={title} description={description} actions={newButton} />
      <Stack spacing={3}>{children(newButton)}</Stack>
    </Box>
  );
}
