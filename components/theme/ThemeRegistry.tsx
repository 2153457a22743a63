'use client';
/** Wraps every page: server-rendered emotion styles, the Berth theme and MUI's baseline CSS. */
import type { ReactNode } from 'react';
import { ThemeProvider } from '@mui/material/styles';
import CssBaseline from '@mui/material/CssBaseline';
import { EmotionRegistry } from './EmotionRegistry';
import { theme } from './theme';

export function ThemeRegistry({ children }: { children: ReactNode }) {
  return (
    <EmotionRegistry>
      <ThemeProvider theme={theme}>
        <CssBaseline enableColorScheme />
        {children}
      </ThemeProvider>
    </EmotionRegistry>
  );
}
