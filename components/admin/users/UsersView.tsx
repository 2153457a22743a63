'use client';
/** The admin users list: search, status filter, pages of GraphQL `user_list`, and creating a user. */
import { useEffect, useState } from 'react';
import NextLink from 'next/link';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import InputAdornment from '@mui/material/InputAdornment';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { PersonAddIcon, SearchIcon } from '@/components/frame/icons';
import { formatDateTime } from '../format';
import { EmptyState, Loading, ProblemAlert } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { TablePager } from '@/components/ui/tableParts';
import { useToast } from '@/components/ui/useToast';
import { CreateUserDialog } from './CreateUserDialog';
import { ROLE_LABELS, STATUS_LABELS, USER_STATUSES, useUserList, type AdminUser } from './useUsers';
import { useDialogTarget } from '@/components/ui/useDialogTarget';

const PAGE_SIZES = [10, 25, 50, 100];

export function userHref(email: string): string {
  return `/admin/users/${encodeURIComponent(email)}`;
}

export function StatusChip({ status }: { status: string }) {
  const color = status === 'active' ? 'success' : status === 'deleted' ? 'error' : 'default';
  return <Chip size="small" label={STATUS_LABELS[status] ?? status} color={color} variant={status === 'active' ? 'filled' : 'outlined'} />;
}

export function RoleChip({ role }: { role: string }) {
  const admin = role === 'admin' || role === 'superadmin';
  return <Chip size="small" label={ROLE_LABELS[role] ?? role} color={admin ? 'primary' : 'default'} variant="outlined" />;
}

/** A value that settles `delayMs` after the last change (search as you type without a request per key). */
function useDebounced<T>(value: T, delayMs = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

function UserRow({ user }: { user: AdminUser }) {
  return (
    <TableRow hover>
      <TableCell sx={{ overflowWrap: 'anywhere' }}>
        <Link component={NextLink} href={userHref(user.email)} underline="hover" sx={{ fontWeight: 500 }}>
          {user.email}
        </Link>
        {user.username && user.username !== user.email && (
          <Typography variant="caption" color="text.secondary" component="div">
            {user.username}
          </Typography>
        )}
      </TableCell>
      <TableCell>{user.full_name || <Typography component="span" variant="body2" color="text.secondary">—</Typography>}</TableCell>
      <TableCell>
        <RoleChip role={user.role} />
      </TableCell>
      <TableCell>
        <StatusChip status={user.status} />
      </TableCell>
      <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' } }}>{user.domain_name}</TableCell>
      <TableCell sx={{ display: { xs: 'none', md: 'table-cell' }, whiteSpace: 'nowrap' }}>{formatDateTime(user.created_at)}</TableCell>
    </TableRow>
  );
}

export function UsersView() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('active');
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(25);
  const creating = useDialogTarget();
  const [toast, notify] = useToast();
  const settledSearch = useDebounced(search);
  const { data, error, isLoading } = useUserList({ search: settledSearch, status, page, pageSize });

  // eslint-disable-next-line react-hooks/set-state-in-effect -- a new search, status or page size starts at the first page
  useEffect(() => setPage(0), [settledSearch, status, pageSize]);

  const list = data?.user_list;
  return (
    <>
      <PageHeader
        title="Users"
        description="Accounts that can sign in to Berth. Open a user to change their details or manage their keypairs."
        actions={
          <Button variant="contained" startIcon={<PersonAddIcon />} onClick={() => creating.open(true)}>
            New user
          </Button>
        }
      />
      <Card variant="outlined">
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ p: 2 }}>
          <TextField
            label="Search"
            placeholder="Email, username or name"
            size="small"
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            sx={{ flexGrow: 1, maxWidth: { sm: 420 } }}
            slotProps={{ input: { startAdornment: <InputAdornment position="start"><SearchIcon fontSize="small" /></InputAdornment> } }}
          />
          <TextField select label="Status" size="small" value={status} onChange={(e) => setStatus(e.target.value)} sx={{ minWidth: 200 }}>
            <MenuItem value="">All</MenuItem>
            {USER_STATUSES.map((s) => (
              <MenuItem key={s} value={s}>
                {STATUS_LABELS[s]}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
        {error && <ProblemAlert error={error} sx={{ mx: 2, mb: 2 }} />}
        {!list && !error && isLoading && <Stack sx={{ px: 2 }}><Loading rows={5} /></Stack>}
        {list && list.items.length === 0 && (
          <EmptyState
            title={settledSearch ? `No users match “${settledSearch}”` : 'No users with this status'}
            action={
              settledSearch || status ? (
                <Button
                  onClick={() => {
                    setSearch('');
                    setStatus('');
                  }}
                >
                  Show all users
                </Button>
              ) : undefined
            }
          >
            {settledSearch ? 'The search looks at emails, usernames and full names.' : undefined}
          </EmptyState>
        )}
        {list && list.items.length > 0 && (
          <>
            <TableContainer>
              <Table size="small" aria-label="Users" data-testid="users-table">
                <TableHead>
                  <TableRow>
                    <TableCell>Email</TableCell>
                    <TableCell>Full name</TableCell>
                    <TableCell>Role</TableCell>
                    <TableCell>Status</TableCell>
                    <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' } }}>Domain</TableCell>
                    <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Created</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {list.items.map((user) => (
                    <UserRow key={user.uuid} user={user} />
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
            <TablePager
              count={list.total_count}
              page={Math.min(page, Math.max(0, Math.ceil(list.total_count / pageSize) - 1))}
              onPage={setPage}
              pageSize={pageSize}
              onPageSize={setPageSize}
              pageSizes={PAGE_SIZES}
            />
          </>
        )}
      </Card>
      <CreateUserDialog
        open={creating.isOpen}
        onClose={creating.close}
        onCreated={creating.done((email) => notify(`${email} can sign in now.`))}
      />
      {toast}
    </>
  );
}
