'use client';
/**
 * The sessions page: running or finished sessions with live status, searched by name, sorted and paged by the
 * manager (so a thousand sessions load one page), and the way to start one.
 */
import { SearchField } from '@/components/ui/SearchField';
import { useState, type ReactNode } from 'react';
import NextLink from 'next/link';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import TableSortLabel from '@mui/material/TableSortLabel';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { AddIcon, TerminalIcon } from '@/components/frame/icons';
import { StatusChip, useNow } from './common';
import { formatSlots, parseSlots, queueWords, relativeTime, type SessionSummary } from './model';
import { useSessionList } from './useSessions';
import { FIRST_FILTER, FIRST_SORT, orderOf, PAGE_SIZES, type SessionFilter, type Sort, type SortKey } from './sessionListQuery';
import { TablePager } from '@/components/ui/tableParts';
import { RowsTable } from '@/components/ui/RowsTable';
import { usePaging } from '@/components/ui/usePaging';

function EmptyState({ filter, search }: { filter: SessionFilter; search: string }) {
  if (search.trim())
    return (
      <Card variant="outlined" sx={{ py: 6, px: 3, textAlign: 'center' }} data-testid="sessions-empty">
        <Typography variant="h6" component="p">
          No session names contain “{search.trim()}”
        </Typography>
      </Card>
    );
  return (
    <Card variant="outlined" sx={{ py: 6, px: 3, textAlign: 'center' }} data-testid="sessions-empty">
      <TerminalIcon color="action" sx={{ fontSize: 48, mb: 1 }} />
      {filter === 'running' ? (
        <>
          <Typography variant="h6" component="p">
            No sessions running
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3, maxWidth: 440, mx: 'auto' }}>
            A session is a sandbox with Python or a shell, a terminal, Jupyter and your files. Start one to begin.
          </Typography>
          <Button variant="contained" component={NextLink} href="/sessions/new" startIcon={<AddIcon />}>
            Start a session
          </Button>
        </>
      ) : (
        <>
          <Typography variant="h6" component="p">
            No finished sessions
          </Typography>
          <Typography color="text.secondary">Sessions you terminate, and batch jobs that end, are listed here.</Typography>
        </>
      )}
    </Card>
  );
}

function SessionRow({ session, now }: { session: SessionSummary; now: number | null }) {
  const slots = parseSlots(session.occupied_slots);
  const when = session.terminated_at ?? session.created_at;
  return (
    <TableRow hover data-testid="session-row" data-session-name={session.name}>
      <TableCell>
        <Link component={NextLink} href={`/sessions/${session.id}`} underline="hover" sx={{ fontWeight: 600 }}>
          {session.name}
        </Link>
        <Typography variant="body2" color="text.secondary" sx={{ display: { md: 'none' } }}>
          {session.image}
        </Typography>
      </TableCell>
      <TableCell>
        <Tooltip title={session.status_info || ''} disableHoverListener={!session.status_info}>
          <span>
            <StatusChip status={session.status} />
          </span>
        </Tooltip>
        {/* Whole once mounted (the expected start is in the browser's zone): the server renders the rows too. */}
        {session.status === 'PENDING' && now !== null && (
          <Typography variant="caption" color="text.secondary" sx={{ display: 'block', maxWidth: 360 }} data-testid="queue-place">
            {session.status_info ? `${session.status_info} ` : ''}
            {queueWords(session.queue_position, session.estimated_start)}
          </Typography>
        )}
      </TableCell>
      <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>{session.image}</TableCell>
      <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <span>{formatSlots(slots)}</span>
          {session.cluster_size > 1 && <Chip size="small" variant="outlined" label={`×${session.cluster_size}`} />}
        </Stack>
      </TableCell>
      <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' } }}>{session.type}</TableCell>
      {/* Times in the browser's zone and words once mounted: the server renders the rows too (the page's first view). */}
      <TableCell sx={{ whiteSpace: 'nowrap' }} title={now === null ? undefined : new Date(when).toLocaleString()}>
        {now === null ? '' : relativeTime(when, now)}
      </TableCell>
    </TableRow>
  );
}

function SortHeader({ field, sort, onSort, children, sx }: { field: SortKey; sort: Sort; onSort: (key: SortKey) => void; children: ReactNode; sx?: object }) {
  const active = sort.key === field;
  return (
    <TableCell sx={sx} sortDirection={active ? (sort.desc ? 'desc' : 'asc') : false}>
      <TableSortLabel active={active} direction={active && sort.desc ? 'desc' : 'asc'} onClick={() => onSort(field)}>
        {children}
      </TableSortLabel>
    </TableCell>
  );
}

export function SessionList() {
  const [filter, setFilter] = useState<SessionFilter>(FIRST_FILTER);
  const [search, setSearch] = useState('');
  const { page, pageSize, setPage, pager } = usePaging(PAGE_SIZES);
  const [sort, setSort] = useState<Sort>(FIRST_SORT);
  const order = orderOf(sort, filter);
  const { data, error, isLoading } = useSessionList({ filter, search, page, pageSize, order });
  const now = useNow();
  const items = data?.items ?? [];
  const onSort = (key: SortKey) => {
    setSort((s) => ({ key, desc: s.key === key ? !s.desc : key === 'when' }));
    setPage(0);
  };

  return (
    <Stack spacing={3}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
          Sessions
        </Typography>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          <SearchField value={search} onChange={setSearch} onPage={setPage} />
          <ToggleButtonGroup
            size="small"
            exclusive
            value={filter}
            onChange={(_e, value: SessionFilter | null) => {
              if (!value) return;
              setFilter(value);
              setPage(0);
            }}
            aria-label="Which sessions"
          >
            <ToggleButton value="running">Running</ToggleButton>
            <ToggleButton value="finished">Finished</ToggleButton>
          </ToggleButtonGroup>
          <Button variant="contained" component={NextLink} href="/sessions/new" startIcon={<AddIcon />}>
            New session
          </Button>
        </Stack>
      </Stack>

      <RowsTable
        label={filter === 'running' ? 'Running sessions' : 'Finished sessions'}
        size="medium"
        rows={data ? items : undefined}
        error={error}
        isLoading={isLoading}
        isEmpty={items.length === 0 && data?.total_count === 0}
        empty={<EmptyState filter={filter} search={search} />}
        colSpan={6}
        head={
          <>
            <SortHeader field="name" sort={sort} onSort={onSort}>
              Name
            </SortHeader>
            <SortHeader field="status" sort={sort} onSort={onSort}>
              Status
            </SortHeader>
            <SortHeader field="image" sort={sort} onSort={onSort} sx={{ display: { xs: 'none', md: 'table-cell' } }}>
              Image
            </SortHeader>
            <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>Resources</TableCell>
            <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' } }}>Type</TableCell>
            <SortHeader field="when" sort={sort} onSort={onSort}>
              {filter === 'running' ? 'Started' : 'Ended'}
            </SortHeader>
          </>
        }
        footer={
          data &&
          data.total_count > PAGE_SIZES[0] && <TablePager count={data.total_count} {...pager} />
        }
      >
        {(rows) => rows.map((s) => <SessionRow key={s.id} session={s} now={now} />)}
      </RowsTable>
    </Stack>
  );
}
