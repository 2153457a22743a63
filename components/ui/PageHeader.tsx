'use client';
/** A page's (or a card's) title, a sentence on what it is for, and its main actions on the right. */
import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

export function PageHeader({ title, description, actions, level = 1, titleId }: { title: string; description?: ReactNode; actions?: ReactNode; level?: 1 | 2; titleId?: string }) {
  return (
    <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'flex-start' }, justifyContent: 'space-between', mb: level === 1 ? 3 : 2 }}>
      <Box sx={{ minWidth: 0 }}>
        <Typography id={titleId} variant={level === 1 ? 'h5' : 'h6'} component={level === 1 ? 'h1' : 'h2'} sx={{ fontWeight: 600 }}>
          {title}
        </Typography>
        {description && (
          <Typography variant="body2" color="text.secondary" component="div" sx={{ mt: 0.5, maxWidth: 720 }}>
            {description}
          </Typography>
        )}
      </Box>
      {actions && <Stack direction="row" spacing={1} sx={{ flexShrink: 0, flexWrap: 'wrap', rowGap: 1 }}>{actions}</Stack>}
    </Stack>
  );
}
