'use client';
/**
 * Statistics: the caller's ended sessions over the last day, week or month as charts; superadmins also see the
 * whole cluster's and the usage of each project over a period, with CSV export. The charts come in a separate
 * chunk (next/dynamic), so only this page loads the charting library.
 */
import { useState } from 'react';
import dynamic from 'next/dynamic';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { DownloadIcon } from '@/components/frame/icons';
import { DataTable, type Column } from '@/components/ui/DataTable';
import { EmptyState, Loading, ProblemAlert } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { SectionCard } from '@/components/ui/SectionCard';
import { formatBytesLocale, formatCountLocale, usageCsv, usageRows, type StatBin, type StatRange, type UsageRow } from './stats';
import { useClusterStats, usePeriodUsage, useUserStats } from './useStatistics';

const StatCharts = dynamic(() => import('./StatCharts'), { ssr: false, loading: () => <Loading rows={6} label="Loading charts" /> });

function ChartsSection({ title, description, scope, bins, error, range }: { title: string; description: string; scope: string; bins: StatBin[] | undefined; error: unknown; range: StatRange }) {
  return (
    <SectionCard id={`${scope}-stats`} title={title} description={description}>
      {error ? <ProblemAlert error={error} /> : bins ? <StatCharts bins={bins} range={range} scope={scope} /> : <Loading rows={6} label="Loading statistics" />}
    </SectionCard>
  );
}

function isoDay(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

const USAGE_COLUMNS: Column<UsageRow>[] = [
  { key: 'project', label: 'Project', render: (r) => r.project, sortValue: (r) => r.project },
  { key: 'domain', label: 'Domain', render: (r) => r.domain, sortValue: (r) => r.domain, wide: true },
  { key: 'sessions', label: 'Containers', render: (r) => formatCountLocale(r.sessions), sortValue: (r) => r.sessions, align: 'right' },
  { key: 'cpu', label: 'CPU', render: (r) => formatCountLocale(r.cpu), sortValue: (r) => r.cpu, align: 'right' },
  { key: 'mem', label: 'Memory', render: (r) => formatBytesLocale(r.memBytes), sortValue: (r) => r.memBytes, align: 'right' },
  { key: 'gpu', label: 'GPU', render: (r) => formatCountLocale(r.gpu), sortValue: (r) => r.gpu, align: 'right', wide: true },
  { key: 'io', label: 'I/O read / written', render: (r) => `${formatBytesLocale(r.ioReadBytes)} / ${formatBytesLocale(r.ioWriteBytes)}`, sortValue: (r) => r.ioReadBytes + r.ioWriteBytes, align: 'right', wide: true },
  { key: 'disk', label: 'Disk', render: (r) => formatBytesLocale(r.diskBytes), sortValue: (r) => r.diskBytes, align: 'right', wide: true },
];

function downloadCsv(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

function ProjectUsageSection() {
  const [end, setEnd] = useState(() => isoDay(new Date()));
  const [start, setStart] = useState(() => isoDay(new Date(Date.now() - 29 * 86_400_000)));
  const { data, error } = usePeriodUsage(true, start, end);
  const rows = data ? usageRows(data) : undefined;
  return (
    <SectionCard
      id="project-usage"
      title="Usage per project"
      description="Containers that ran in the period (at most 100 days, end date included), summed per project."
      actions={
        <Button variant="outlined" startIcon={<DownloadIcon />} disabled={!rows?.length} onClick={() => rows && downloadCsv(`berth-usage-${start}-${end}.csv`, usageCsv(rows))}>
          Export CSV
        </Button>
      }
    >
      <Stack direction="row" spacing={2} sx={{ mb: 2 }}>
        <TextField type="date" label="From" size="small" value={start} onChange={(e) => setStart(e.target.value)} slotProps={{ inputLabel: { shrink: true } }} />
        <TextField type="date" label="To" size="small" value={end} onChange={(e) => setEnd(e.target.value)} slotProps={{ inputLabel: { shrink: true } }} />
      </Stack>
      <DataTable
        label="Usage per project"
        testId="project-usage-table"
        columns={USAGE_COLUMNS}
        rowKey={(r) => `${r.domain}/${r.project}`}
        rows={rows}
        error={error}
        empty={<EmptyState title="No usage in this period">No container ran in any project between these dates.</EmptyState>}
      />
    </SectionCard>
  );
}

export function StatisticsView() {
  const me = useCurrentUser();
  const superadmin = me.role === 'superadmin';
  const [range, setRange] = useState<StatRange>('week');
  const mine = useUserStats();
  const cluster = useClusterStats(superadmin);
  return (
    <>
      <PageHeader
        title="Statistics"
        description="Resources held by ended sessions, in 15-minute steps (longer ranges show each step's peak)."
        actions={
          <ToggleButtonGroup exclusive size="small" value={range} onChange={(_e, next: StatRange | null) => next && setRange(next)} aria-label="Range">
            <ToggleButton value="day">Day</ToggleButton>
            <ToggleButton value="week">Week</ToggleButton>
            <ToggleButton value="month">Month</ToggleButton>
          </ToggleButtonGroup>
        }
      />
      <Stack spacing={3}>
        <ChartsSection title="My sessions" description="Your own sessions." scope="user" bins={mine.data} error={mine.error} range={range} />
        {superadmin && <ChartsSection title="Cluster" description="Every user's sessions." scope="cluster" bins={cluster.data} error={cluster.error} range={range} />}
        {superadmin && <ProjectUsageSection />}
      </Stack>
    </>
  );
}
