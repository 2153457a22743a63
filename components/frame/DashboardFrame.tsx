'use client';
/**
 * The signed-in pages' frame: an app bar (menu, product name, who is signed in, sign-out) and a navigation
 * drawer, permanent on wide screens and a slide-over on narrow ones; the announcement banner heads the content.
 */
import { useState, type ReactNode } from 'react';
import NextLink from 'next/link';
import { usePathname } from 'next/navigation';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import { ManagerSWRProvider } from '@/components/api/ManagerSWRProvider';
import { CurrentUserProvider, type CurrentUser } from '@/components/auth/CurrentUser';
import { AnnouncementBanner } from './AnnouncementBanner';
import { LogoutIcon, MenuIcon } from './icons';
import { activeItem, navItemsFor } from './navigation';

const DRAWER_WIDTH = 232;

function Navigation({ role, onNavigate }: { role: string; onNavigate?: () => void }) {
  const pathname = usePathname() ?? '/';
  const items = navItemsFor(role);
  const active = activeItem(items, pathname);
  return (
    <Box component="nav" aria-label="Main">
      <Toolbar />
      <List sx={{ px: 1 }}>
        {items.map((item) => (
          <ListItemButton
            key={item.href}
            component={NextLink}
            href={item.href}
            selected={item === active}
            aria-current={item === active ? 'page' : undefined}
            onClick={onNavigate}
            sx={{ borderRadius: 1 }}
          >
            <ListItemIcon sx={{ minWidth: 40 }}>
              <item.icon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={item.label} />
          </ListItemButton>
        ))}
      </List>
    </Box>
  );
}

export function DashboardFrame({ user, children }: { user: CurrentUser; children: ReactNode }) {
  const [mobileOpen, setMobileOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);

  return (
    <CurrentUserProvider user={user}>
      <ManagerSWRProvider>
        <Box sx={{ display: 'flex', minHeight: '100vh' }}>
          <AppBar
            position="fixed"
            color="inherit"
            sx={{ zIndex: (t) => t.zIndex.drawer + 1, borderBottom: 1, borderColor: 'divider' }}
          >
            <Toolbar sx={{ gap: 1 }}>
              <IconButton
                edge="start"
                aria-label="Open navigation"
                onClick={() => setMobileOpen(true)}
                sx={{ display: { md: 'none' } }}
              >
                <MenuIcon />
              </IconButton>
              <Typography variant="h6" component="div" sx={{ fontWeight: 700, flexGrow: 1 }}>
                Berth
              </Typography>
              <Typography variant="body2" color="text.secondary" sx={{ display: { xs: 'none', sm: 'block' } }}>
                {user.email ?? user.name}
              </Typography>
              <Chip label={user.role} size="small" variant="outlined" sx={{ display: { xs: 'none', sm: 'inline-flex' } }} />
              {/* A plain form: the server clears the session and redirects (to the provider's logout for single sign-on). */}
              <form method="post" action="/api/auth-extra/logout" onSubmit={() => setSigningOut(true)}>
                <Button type="submit" color="inherit" startIcon={<LogoutIcon />} disabled={signingOut}>
                  Sign out
                </Button>
              </form>
            </Toolbar>
          </AppBar>
          <Box component="aside" sx={{ width: { md: DRAWER_WIDTH }, flexShrink: { md: 0 } }}>
            <Drawer
              variant="temporary"
              open={mobileOpen}
              onClose={() => setMobileOpen(false)}
              ModalProps={{ keepMounted: true }}
              sx={{ display: { xs: 'block', md: 'none' }, '& .MuiDrawer-paper': { width: DRAWER_WIDTH } }}
            >
              <Navigation role={user.role} onNavigate={() => setMobileOpen(false)} />
            </Drawer>
            <Drawer
              variant="permanent"
              open
              sx={{ display: { xs: 'none', md: 'block' }, '& .MuiDrawer-paper': { width: DRAWER_WIDTH, boxSizing: 'border-box' } }}
            >
              <Navigation role={user.role} />
            </Drawer>
          </Box>
          <Box component="main" sx={{ flexGrow: 1, minWidth: 0, p: { xs: 2, sm: 3 } }}>
            <Toolbar />
            <AnnouncementBanner />
            {children}
          </Box>
        </Box>
      </ManagerSWRProvider>
    </CurrentUserProvider>
  );
}
