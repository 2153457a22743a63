'use client';
/** A titled card holding one part of a page (a form, a list). */
import type { ReactNode } from 'react';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import { PageHeader } from './PageHeader';

export function SectionCard({ id, title, description, actions, children, testId }: { id?: string; title: string; description?: ReactNode; actions?: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <Card variant="outlined" component="section" id={id} aria-labelledby={id ? `${id}-title` : undefined} data-testid={testId}>
      <CardContent sx={{ p: { xs: 2, sm: 3 } }}>
        <PageHeader level={2} title={title} description={description} actions={actions} titleId={id ? `${id}-title` : undefined} />
        {children}
      </CardContent>
    </Card>
  );
}
