/** The drawer's entries: one per page that exists. Areas add their page here when they land. */
import type { ComponentType } from 'react';
import type { SvgIconProps } from '@mui/material/SvgIcon';
import { AdminIcon, ChartIcon, DashboardIcon, FolderIcon, ServicesIcon, SettingsIcon, TerminalIcon } from './icons';

export interface NavItem {
  href: string;
  label: string;
  icon: ComponentType<SvgIconProps>;
  /** Roles that see the entry; every signed-in user when left out. */
  roles?: string[];
}

export const NAV_ITEMS: NavItem[] = [
  { href: '/', label: 'Summary', icon: DashboardIcon },
  { href: '/sessions', label: 'Sessions', icon: TerminalIcon },
  { href: '/folders', label: 'Folders', icon: FolderIcon },
  { href: '/services', label: 'Services', icon: ServicesIcon },
  { href: '/statistics', label: 'Statistics', icon: ChartIcon },
  { href: '/settings', label: 'Settings', icon: SettingsIcon },
  { href: '/admin', label: 'Administration', icon: AdminIcon, roles: ['admin', 'superadmin'] },
];

export function navItemsFor(role: string): NavItem[] {
  return NAV_ITEMS.filter((item) => !item.roles || item.roles.includes(role));
}

/** The entry a path belongs to: the longest href that prefixes it. */
export function activeItem(items: NavItem[], pathname: string): NavItem | undefined {
  return items
    .filter((item) => (item.href === '/' ? pathname === '/' : pathname === item.href || pathname.startsWith(`${item.href}/`)))
    .sort((a, b) => b.href.length - a.href.length)[0];
}
