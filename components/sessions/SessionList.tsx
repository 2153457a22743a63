'use client';
/** The sessions page: running or finished sessions with live status, and the way to start one. */
import { useState } from 'react';
import NextLink from 'next/link';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { AddIcon, TerminalIcon } from '@/components/frame/icons';
import { ProblemAlert, StatusChip, useDelayed, useNow } from './common';
import { formatSlots, parseSlots, queueWords, relativeTime, type SessionSummary } from './model';
import { useSessionList, type SessionFilter } from './useSessions';
import { SkeletonRows } from '@/components/ui/tableParts';

function EmptyState({ filter }: { filter: SessionFilter }) {
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
        {session.status === 'PENDING' && (
          <Typography variant="caption" color="text.secondary" sx={{ display: 'block' }} data-testid="queue-place">
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
      <TableCell sx={{ whiteSpace: 'nowrap' }} title={new Date(when).toLocaleString()}>
        {now === null ? '' : relativeTime(when, now)}
      </TableCell>
    </TableRow>
  );
}

export function SessionList() {
  const [filter, setFilter] = useState<SessionFilter>('running');
  const { data, error, isLoading } = useSessionList(filter);
  const showSkeleton = useDelayed(isLoading && !data);
  const now = useNow();
  const items = data?.items ?? [];

  return (
    <Stack spacing={3}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
          Sessions
        </Typography>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          <ToggleButtonGroup
            size="small"
            exclusive
            value={filter}
            onChange={(_e, value: SessionFilter | null) => value && setFilter(value)}
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

      {error && !data && <ProblemAlert error={error} />}

      {data && items.length === 0 ? (
        <EmptyState filter={filter} />
      ) : (
        (data || showSkeleton) && (
          <TableContainer component={Card} variant="outlined">
            <Table size="medium" aria-label={filter === 'running' ? 'Running sessions' : 'Finished sessions'}>
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Image</TableCell>
                  <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>Resources</TableCell>
                  <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' } }}>Type</TableCell>
                  <TableCell>{filter === 'running' ? 'Started' : 'Ended'}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>{data ? items.map((s) => <SessionRow key={s.id} session={s} now={now} />) : <SkeletonRows colSpan={6} />}</TableBody>
            </Table>
          </TableContainer>
        )
      )}
      {data && data.total_count > items.length && (
        <Box>
          <Typography variant="body2" color="text.secondary">
            Showing the newest {items.length} of {data.total_count} sessions.
          </Typography>
        </Box>
      )}
    </Stack>
  );
}
