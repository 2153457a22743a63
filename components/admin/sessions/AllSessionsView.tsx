'use client';
/**
 * All sessions (admins): every user's sessions, paged, filtered and sorted by the manager, so thousands stay fast;
 * select sessions and terminate them together behind a confirmation. Filters live in the URL, so a reload or a
 * shared link shows the same list.
 */
import { useState } from 'react';
import NextLink from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { StopIcon } from '@/components/frame/icons';
import { StatusChip } from '@/components/sessions/common';
import { FINISHED_STATUSES, LIVE_STATUSES } from '@/components/sessions/model';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { DataTable, type Column, type SortState } from '@/components/ui/DataTable';
import { EmptyState } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { useToast } from '@/components/ui/useToast';
import { formatDateTime } from '../format';
import { NO_FILTERS, type SessionFilters } from './sessionFilter';
import { terminateSessions, useAllSessions, type AdminSession } from './useAllSessions';

const STATUS_CHOICES: { value: string; label: string }[] = [
  { value: LIVE_STATUSES.join(','), label: 'Live' },
  { value: FINISHED_STATUSES.join(','), label: 'Finished' },
  { value: '', label: 'Any status' },
  ...[...LIVE_STATUSES, ...FINISHED_STATUSES].map((s) => ({ value: s, label: s })),
];

const FILTER_FIELDS: { key: keyof SessionFilters; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'user', label: 'User' },
  { key: 'project', label: 'Project' },
  { key: 'agent', label: 'Agent' },
  { key: 'image', label: 'Image' },
];

const PAGE_SIZES = [25, 50, 100];

export function AllSessionsView() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const filters: SessionFilters = Object.fromEntries(FILTER_FIELDS.map(({ key }) => [key, params.get(key) ?? ''])) as unknown as SessionFilters;
  const statusParam = params.get('status');
  /** 'any' in the URL: every status (an empty status would read as the default, live). */
  const status = statusParam === 'any' ? '' : (statusParam ?? LIVE_STATUSES.join(','));
  const page = Math.max(0, Number(params.get('page')) || 0);
  const pageSize = PAGE_SIZES.includes(Number(params.get('size'))) ? Number(params.get('size')) : PAGE_SIZES[0];
  const sortParam = params.get('sort');
  const sort: SortState | null = sortParam ? { key: sortParam.replace(/^-/, ''), direction: sortParam.startsWith('-') ? 'desc' : 'asc' } : null;
  const [draft, setDraft] = useState<SessionFilters>(filters);
  const [selected, setSelected] = useState<string[]>([]);
  const [confirming, setConfirming] = useState(false);
  const [toast, notify] = useToast();
  const { data, error } = useAllSessions({ filters, status, sort, page, pageSize });
  const list = data?.compute_session_list;

  function go(next: Record<string, string | number | null>) {
    const query = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(next)) {
      if (v === null || v === '') query.delete(k);
      else query.set(k, String(v));
    }
    setSelected([]);
    router.replace(`${pathname}?${query}`);
  }

  const columns: Column<AdminSession>[] = [
    {
      key: 'name',
      label: 'Session',
      serverSortable: true,
      render: (s) => (
        <Link component={NextLink} href={`/sessions/${s.id}`}>
          {s.name}
        </Link>
      ),
    },
    { key: 'status', label: 'Status', serverSortable: true, render: (s) => <StatusChip status={s.status} /> },
    { key: 'user_email', label: 'User', serverSortable: true, render: (s) => s.user_email ?? '—' },
    { key: 'group_name', label: 'Project', serverSortable: true, render: (s) => s.group_name ?? '—', wide: true },
    { key: 'image', label: 'Image', serverSortable: true, render: (s) => <Box sx={{ wordBreak: 'break-all' }}>{s.image}</Box>, wide: true },
    { key: 'agent_ids', label: 'Agent', render: (s) => (s.agent_ids ?? []).join(', ') || '—', wide: true },
    { key: 'created_at', label: 'Created', serverSortable: true, render: (s) => formatDateTime(s.created_at), wide: true },
  ];
  const chosen = (list?.items ?? []).filter((s) => selected.includes(s.id));

  return (
    <>
      <PageHeader
        title="All sessions"
        description="Every user's sessions you may manage. Filter, sort and page on the server; select sessions to terminate them together."
        actions={
          <Button variant="contained" color="error" startIcon={<StopIcon />} disabled={chosen.length === 0} onClick={() => setConfirming(true)}>
            Terminate{chosen.length ? ` ${chosen.length}` : ''}
          </Button>
        }
      />
      <DataTable
        label="All sessions"
        testId="all-sessions-table"
        columns={columns}
        rowKey={(s) => s.id}
        rowName={(s) => s.name}
        rows={list?.items}
        error={error}
        total={list?.total_count ?? 0}
        page={page}
        onPage={(p) => go({ page: p || null })}
        pageSize={pageSize}
        onPageSize={(size) => go({ size, page: null })}
        pageSizes={PAGE_SIZES}
        sort={sort}
        onSort={(s) => go({ sort: `${s.direction === 'desc' ? '-' : ''}${s.key}`, page: null })}
        selected={selected}
        onSelect={setSelected}
        empty={<EmptyState title="No sessions match">Change the filters or the status.</EmptyState>}
        toolbar={
          <Stack
            component="form"
            direction={{ xs: 'column', md: 'row' }}
            spacing={1}
            sx={{ p: 2, pb: 1 }}
            onSubmit={(e) => {
              e.preventDefault();
              go({ ...draft, page: null });
            }}
          >
            <TextField select size="small" label="Status" value={status === '' ? 'any' : status} onChange={(e) => go({ status: e.target.value === LIVE_STATUSES.join(',') ? null : e.target.value, page: null })} sx={{ minWidth: 140 }}>
              {STATUS_CHOICES.map((c) => (
                <MenuItem key={c.label} value={c.value === '' ? 'any' : c.value}>
                  {c.label}
                </MenuItem>
              ))}
            </TextField>
            {FILTER_FIELDS.map(({ key, label }) => (
              <TextField key={key} size="small" label={label} value={draft[key]} onChange={(e) => setDraft({ ...draft, [key]: e.target.value })} />
            ))}
            <Button type="submit" variant="outlined">
              Filter
            </Button>
            <Button
              onClick={() => {
                setDraft(NO_FILTERS);
                go({ ...NO_FILTERS, page: null });
              }}
            >
              Clear
            </Button>
          </Stack>
        }
      />
      <ConfirmDialog
        open={confirming}
        title={`Terminate ${chosen.length} session${chosen.length === 1 ? '' : 's'}?`}
        confirmLabel="Terminate"
        danger
        onConfirm={async () => {
          const failed = await terminateSessions(chosen);
          setSelected([]);
          if (failed.length) notify(`${chosen.length - failed.length} terminated; ${failed.length} refused (${failed.map((f) => f.session.name).join(', ')}).`, 'error');
          else notify(`Terminating ${chosen.length} session${chosen.length === 1 ? '' : 's'}.`);
        }}
        onClose={() => setConfirming(false)}
      >
        Their work that is not in a folder is lost: {chosen.map((s) => s.name).join(', ')}.
      </ConfirmDialog>
      {toast}
    </>
  );
}
