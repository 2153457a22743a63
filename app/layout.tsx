import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { ThemeRegistry } from '@/components/theme/ThemeRegistry';

export const metadata: Metadata = {
  title: { default: 'Berth', template: '%s · Berth' },
  description: 'Berth cluster compute manager',
};

export const viewport: Viewport = {
  colorScheme: 'light dark',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <ThemeRegistry>{children}</ThemeRegistry>
      </body>
    </html>
  );
}
