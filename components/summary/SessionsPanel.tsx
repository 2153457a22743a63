'use client';
/** The caller's live sessions, newest first, each linking to its page; refreshed every few seconds. */
import NextLink from 'next/link';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { formatRelative, formatSlot, orderSlots, slotLabel, type SlotUnits } from '@/components/admin/format';
import { isMissingField, parseJsonField } from '@/components/api/graphql';
import { EmptyState, Loading, ProblemAlert } from '@/components/ui/feedback';
import { useSlotUnits } from '@/components/admin/useSlotUnits';
import { useAccount } from '@/components/settings/useSettings';
import { SummaryCard } from './SummaryCard';
import { useMySessions, type SummarySession } from './useSummary';

const STATUS_COLORS: Record<string, 'success' | 'warning' | 'error' | 'info' | 'default'> = {
  RUNNING: 'success',
  RUNNING_DEGRADED: 'warning',
  RESTARTING: 'warning',
  TERMINATING: 'default',
  ERROR: 'error',
};

export function sessionHref(session: { id: string }): string {
  return `/sessions/${encodeURIComponent(session.id)}`;
}

function slotsText(session: SummarySession, units?: SlotUnits): string {
  const slots = parseJsonField<Record<string, string>>(session.occupying_slots, {});
  return orderSlots(Object.keys(slots))
    .filter((slot) => Number(slots[slot]) > 0)
    .map((slot) => (slot === 'mem' ? formatSlot(slot, slots[slot], units) : `${formatSlot(slot, slots[slot], units)} ${slotLabel(slot)}`))
    .join(' · ');
}

function SessionItem({ session, units }: { session: SummarySession; units?: SlotUnits }) {
  const resources = slotsText(session, units);
  return (
    <ListItem disableGutters divider sx={{ display: 'block', py: 1 }}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
        <Link component={NextLink} href={sessionHref(session)} underline="hover" sx={{ fontWeight: 600, minWidth: 0, overflowWrap: 'anywhere' }}>
          {session.name}
        </Link>
        <Chip size="small" label={session.status} color={STATUS_COLORS[session.status] ?? 'info'} variant={session.status === 'RUNNING' ? 'filled' : 'outlined'} />
      </Stack>
      <Typography variant="caption" color="text.secondary" component="div" sx={{ overflowWrap: 'anywhere' }}>
        {[session.image, session.type, resources, session.created_at && `started ${formatRelative(session.created_at)}`].filter(Boolean).join(' · ')}
      </Typography>
      {session.status_info && session.status !== 'RUNNING' && (
        <Typography variant="caption" color="text.secondary" component="div">
          {session.status_info}
        </Typography>
      )}
    </ListItem>
  );
}

export function SessionsPanel() {
  const account = useAccount();
  const email = account.data?.user?.email ?? null;
  const { data, error } = useMySessions(email);
  const units = useSlotUnits();
  const list = data?.compute_session_list;

  const startButton = (
    <Button size="small" component={NextLink} href="/sessions/new">
      Start a session
    </Button>
  );

  let body;
  if (isMissingField(error, 'compute_session_list')) {
    body = <EmptyState title="Sessions are not listed by this manager">It does not offer the session list (GraphQL compute_session_list) yet.</EmptyState>;
  } else if (error || account.error) {
    body = <ProblemAlert error={error ?? account.error} />;
  } else if (!list) {
    body = <Loading rows={3} />;
  } else if (list.items.length === 0) {
    body = (
      <EmptyState title="No running sessions" action={<Button variant="outlined" component={NextLink} href="/sessions/new">Start a session</Button>}>
        Start one to get a terminal, Jupyter or a batch job.
      </EmptyState>
    );
  } else {
    body = (
      <>
        <List dense disablePadding data-testid="my-sessions">
          {list.items.map((session) => (
            <SessionItem key={session.id} session={session} units={units.data} />
          ))}
        </List>
        {list.total_count > list.items.length && (
          <Box sx={{ pt: 1 }}>
            <Link component={NextLink} href="/sessions" underline="hover" variant="body2">
              All {list.total_count} sessions
            </Link>
          </Box>
        )}
      </>
    );
  }
  return (
    <SummaryCard title="Your sessions" action={list && list.items.length > 0 ? startButton : undefined} testId="sessions-panel">
      {body}
    </SummaryCard>
  );
}
