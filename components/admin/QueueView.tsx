'use client';
/**
 * Each scaling group's queue in the order its policy serves it (GraphQL scheduling_queues): why each session
 * waits, how many each user has waiting, and what the head asks for against the most any one agent has free.
 */
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useQueues } from './useQueues';
import { formatDateTime } from './format';
import { EmptyState, ProblemAlert } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';

const slots = (text: string | null) =>
  text ? Object.entries(JSON.parse(text) as Record<string, string>).map(([k, v]) => `${k} ${v}`).join(', ') || '—' : '—';

export function QueueView() {
  const { data, error } = useQueues();
  return (
    <>
      <PageHeader title="Queue" description="Pending sessions of each scaling group, next first, with why they wait." />
      {error && <ProblemAlert error={error} />}
      {data && !data.scheduling_queues.length && <EmptyState title="No session is waiting." />}
      <Stack spacing={3}>
        {data?.scheduling_queues.map((q) => (
          <Card key={q.scaling_group} variant="outlined" data-testid="queue-group">
            <CardContent>
              <Typography variant="h6" component="h2">
                {q.scaling_group} <Typography component="span" color="text.secondary">({q.scheduler.toUpperCase()})</Typography>
              </Typography>
              <Typography variant="body2" color="text.secondary">
                The head asks for {slots(q.head_needs)}; the most any one agent has free: {slots(q.largest_free)}.
                {q.not_ready > 0 && ` ${q.not_ready} more wait for their start time or dependencies.`}
              </Typography>
              <Typography variant="body2" sx={{ mt: 1 }}>
                Per user: {q.per_user.map((u) => `${u.user_email ?? u.access_key} ${u.in_line} in line${u.not_ready ? `, ${u.not_ready} not yet` : ''}`).join(' · ')}
              </Typography>
              <TableContainer>
                <Table size="small" aria-label={`Queue of ${q.scaling_group}`}>
                  <TableHead>
                    <TableRow>
                      <TableCell>#</TableCell>
                      <TableCell>Session</TableCell>
                      <TableCell>Owner</TableCell>
                      <TableCell>Priority</TableCell>
                      <TableCell>Submitted</TableCell>
                      <TableCell>Why it waits</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {q.entries.map((e) => (
                      <TableRow key={e.position}>
                        <TableCell>{e.position}</TableCell>
                        <TableCell>{e.session_name}</TableCell>
                        <TableCell>{e.user_email ?? e.access_key}</TableCell>
                        <TableCell>{e.priority}</TableCell>
                        <TableCell>{formatDateTime(e.created_at)}</TableCell>
                        <TableCell>{e.status_info || 'Not looked at yet'}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </TableContainer>
            </CardContent>
          </Card>
        ))}
      </Stack>
    </>
  );
}
