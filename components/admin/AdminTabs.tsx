'use client';
/** The administration area's sections as tabs; superadmin-only sections are shown to superadmins only. */
import NextLink from 'next/link';
import { usePathname } from 'next/navigation';
import Box from '@mui/material/Box';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import { sectionsFor } from './sections';

export function AdminTabs({ role }: { role: string }) {
  const pathname = usePathname() ?? '';
  const sections = sectionsFor(role);
  const active = sections.find((s) => pathname === s.href || pathname.startsWith(`${s.href}/`));
  return (
    <Box component="nav" aria-label="Administration" sx={{ borderBottom: 1, borderColor: 'divider', mb: 3 }}>
      <Tabs value={active?.href ?? false} variant="scrollable" scrollButtons="auto" allowScrollButtonsMobile aria-label="Administration sections">
        {sections.map((s) => (
          <Tab key={s.href} value={s.href} label={s.label} component={NextLink} href={s.href} aria-current={s === active ? 'page' : undefined} />
        ))}
      </Tabs>
    </Box>
  );
}

