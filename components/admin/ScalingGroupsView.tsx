'use client';
/** Scaling groups: the pools of agents sessions are scheduled into, with their scheduler and visibility. */
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { formatDateTime } from './format';
import { useScalingGroups } from './useScalingGroups';
import { EmptyState } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { ListCardContent } from '@/components/ui/tableParts';

const SCHEDULERS: Record<string, string> = { fifo: 'FIFO (first in, first out)', lifo: 'LIFO (last in, first out)', drf: 'DRF (dominant resource fairness)' };

export function ScalingGroupsView() {
  const { data, error } = useScalingGroups();
  const groups = data?.scaling_groups ?? null;
  return (
    <>
      <PageHeader
        title="Scaling groups"
        description="Pools of agents. A session runs in one scaling group; public groups are open to every project, private ones only to those they are assigned to."
      />
      <Card variant="outlined">
        <ListCardContent
          error={error}
          data={groups ?? undefined}
          loadingRows={2}
          isEmpty={(g) => g.length === 0}
          empty={
            <EmptyState title="No scaling groups">Sessions need a scaling group with agents; the manager creates “default” on first start.</EmptyState>
          }
        >
          {(groups) => (
            <TableContainer>
              <Table size="small" aria-label="Scaling groups" data-testid="scaling-groups-table">
                <TableHead>
                  <TableRow>
                    <TableCell>Name</TableCell>
                    <TableCell>State</TableCell>
                    <TableCell>Scheduler</TableCell>
                    <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Driver</TableCell>
                    <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' } }}>App proxy</TableCell>
                    <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Created</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {groups.map((g) => (
                    <TableRow key={g.name} hover>
                      <TableCell>
                        <Typography variant="body2" sx={{ fontWeight: 500 }}>
                          {g.name}
                        </Typography>
                        {g.description && (
                          <Typography variant="caption" color="text.secondary" component="div">
                            {g.description}
                          </Typography>
                        )}
                      </TableCell>
                      <TableCell>
                        <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap', rowGap: 0.5 }}>
                          <Chip size="small" label={g.is_active ? 'Active' : 'Inactive'} color={g.is_active ? 'success' : 'default'} variant={g.is_active ? 'filled' : 'outlined'} />
                          <Chip size="small" label={g.is_public ? 'Public' : 'Private'} variant="outlined" />
                        </Stack>
                      </TableCell>
                      <TableCell>{(g.scheduler && SCHEDULERS[g.scheduler]) ?? g.scheduler ?? '—'}</TableCell>
                      <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>
                        {g.driver ?? '—'}
                        {g.use_host_network ? ' · host network' : ''}
                      </TableCell>
                      <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' }, overflowWrap: 'anywhere' }}>{g.wsproxy_addr || 'Built-in'}</TableCell>
                      <TableCell sx={{ display: { xs: 'none', md: 'table-cell' }, whiteSpace: 'nowrap' }}>{formatDateTime(g.created_at)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          )}
        </ListCardContent>
      </Card>
    </>
  );
}
