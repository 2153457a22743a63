'use client';
/** Scaling groups: the pools of agents sessions are scheduled into, with their scheduler and visibility. */
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { formatDateTime } from './format';
import { useScalingGroups, type ScalingGroup } from './useScalingGroups';
import { EmptyState } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { DataTable, type Column } from '@/components/ui/DataTable';

const SCHEDULERS: Record<string, string> = { fifo: 'FIFO (first in, first out)', lifo: 'LIFO (last in, first out)', drf: 'DRF (dominant resource fairness)' };

const COLUMNS: Column<ScalingGroup>[] = [
  {
    key: 'name',
    label: 'Name',
    sortValue: (g) => g.name,
    render: (g) => (
      <>
        <Typography variant="body2" sx={{ fontWeight: 500 }}>
          {g.name}
        </Typography>
        {g.description && (
          <Typography variant="caption" color="text.secondary" component="div">
            {g.description}
          </Typography>
        )}
      </>
    ),
  },
  {
    key: 'state',
    label: 'State',
    render: (g) => (
      <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap', rowGap: 0.5 }}>
        <Chip size="small" label={g.is_active ? 'Active' : 'Inactive'} color={g.is_active ? 'success' : 'default'} variant={g.is_active ? 'filled' : 'outlined'} />
        <Chip size="small" label={g.is_public ? 'Public' : 'Private'} variant="outlined" />
      </Stack>
    ),
  },
  { key: 'scheduler', label: 'Scheduler', render: (g) => (g.scheduler && SCHEDULERS[g.scheduler]) ?? g.scheduler ?? '—' },
  { key: 'driver', label: 'Driver', wide: true, render: (g) => `${g.driver ?? '—'}${g.use_host_network ? ' · host network' : ''}` },
  { key: 'proxy', label: 'App proxy', hideBelow: 'lg', cellSx: { overflowWrap: 'anywhere' }, render: (g) => g.wsproxy_addr || 'Built-in' },
  { key: 'created', label: 'Created', wide: true, cellSx: { whiteSpace: 'nowrap' }, sortValue: (g) => g.created_at, render: (g) => formatDateTime(g.created_at) },
];

export function ScalingGroupsView() {
  const { data, error } = useScalingGroups();
  return (
    <>
      <PageHeader
        title="Scaling groups"
        description="Pools of agents. A session runs in one scaling group; public groups are open to every project, private ones only to those they are assigned to."
      />
      <DataTable
        label="Scaling groups"
        testId="scaling-groups-table"
        columns={COLUMNS}
        rowKey={(g) => g.name}
        rows={data?.scaling_groups ?? undefined}
        loadingRows={2}
        error={error}
        empty={<EmptyState title="No scaling groups">Sessions need a scaling group with agents; the manager creates “default” on first start.</EmptyState>}
      />
    </>
  );
}
