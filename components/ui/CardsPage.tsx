'use client';
/**
 * A page made of cards (settings, manager, configuration store): its header, the cards in one column of a readable
 * width, and one toast their actions report to. `children` gets `notify`, the toast's trigger, to hand to the cards.
 */
import type { ReactNode } from 'react';
import Stack from '@mui/material/Stack';
import { PageHeader } from './PageHeader';
import { useToast } from './useToast';

type Notify = ReturnType<typeof useToast>[1];

export function CardsPage({ title, description, children }: { title: string; description: ReactNode; children: (notify: Notify) => ReactNode }) {
  const [toast, notify] = useToast();
  return (
    <>
      <PageHeader title={title} description={description} />
      <CardColumn>{children(notify)}</CardColumn>
      {toast}
    </>
  );
}

/** The column a page's cards stand in, for a page that builds its own header. */
export function CardColumn({ children }: { children: ReactNode }) {
  return (
    <Stack spacing={3} sx={{ maxWidth: 1100 }}>
      {children}
    </Stack>
  );
}
