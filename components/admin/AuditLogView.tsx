'use client';
/**
 * The audit log (issue 14, superadmins): every state-changing request, GraphQL mutation, login and failed login,
 * newest first, a page at a time, narrowed by the same filter language as the other lists
 * (e.g. `status != "200" & actor_email ilike "%@example.com"`). Access keys are not shown: keys never reach the
 * browser.
 */
import { useState, type FormEvent } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useAuditLog, type AuditItem } from './useAuditLog';
import { formatDateTime } from './format';
import { EmptyState } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { DataTable, type Column } from '@/components/ui/DataTable';
import { MONO } from '@/components/ui/CodeField';
import { usePaging } from '@/components/ui/usePaging';


function statusColor(status: string): 'success' | 'warning' | 'error' | 'default' {
  const code = Number(status);
  if (code >= 500) return 'error';
  if (code >= 400) return 'warning';
  if (code >= 200 && code < 400) return 'success';
  return 'default';
}

/** `{"name":"demo"}` → `name=demo`, for reading; anything else as it is. */
function targetText(target: string | null): string {
  if (!target) return '—';
  try {
    return Object.entries(JSON.parse(target) as Record<string, string>)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
  } catch {
    return target;
  }
}

/** A record and its place on the page: one request can leave several records alike in every field. */
type AuditRow = AuditItem & { seq: number };

const COLUMNS: Column<AuditRow>[] = [
  { key: 'time', label: 'Time', cellSx: { whiteSpace: 'nowrap' }, render: (item) => formatDateTime(item.created_at) },
  { key: 'actor', label: 'Actor', cellSx: { overflowWrap: 'anywhere' }, render: (item) => item.actor_email ?? '—' },
  { key: 'action', label: 'Action', cellSx: { fontFamily: MONO, fontSize: 13, overflowWrap: 'anywhere' }, render: (item) => item.action },
  { key: 'target', label: 'Target', wide: true, cellSx: { overflowWrap: 'anywhere' }, render: (item) => targetText(item.target) },
  { key: 'status', label: 'Status', render: (item) => <Chip size="small" variant="outlined" label={item.status} color={statusColor(item.status)} /> },
  { key: 'client', label: 'Client', hideBelow: 'lg', render: (item) => item.client_ip || '—' },
  { key: 'request', label: 'Request', hideBelow: 'xl', cellSx: { fontFamily: MONO, fontSize: 12 }, render: (item) => item.request_id || '—' },
];

const PAGE_SIZES = [20, 50, 100];

export function AuditLogView() {
  const { page, pageSize, setPage, pager } = usePaging(PAGE_SIZES, 50);
  const [draft, setDraft] = useState('');
  const [filter, setFilter] = useState('');
  const { data, error } = useAuditLog(page, pageSize, filter);

  function apply(event: FormEvent) {
    event.preventDefault();
    setPage(0);
    setFilter(draft.trim());
  }

  const list = data?.audit_log_list ?? undefined;
  return (
    <>
      <PageHeader title="Audit log" description="Who changed what: every state-changing request, GraphQL mutation, login and failed login, newest first." />
      <Box component="form" onSubmit={apply} sx={{ mb: 2 }}>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
          <TextField
            size="small"
            fullWidth
            label="Filter"
            placeholder={'action == "POST /folders" & status != "200"'}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            helperText="Fields: created_at, actor_email, action, target, status, request_id, client_ip (==, !=, <, >, like, ilike, contains, in, &, |)."
            slotProps={{ htmlInput: { 'aria-label': 'Audit log filter', spellCheck: false, style: { fontFamily: MONO } } }}
          />
          <Box>
            <Button type="submit" variant="outlined" sx={{ height: 40 }}>
              Apply
            </Button>
          </Box>
        </Stack>
      </Box>
      <DataTable
        label="Audit log"
        testId="audit-log-table"
        columns={COLUMNS}
        rowKey={(item) => `${item.request_id}-${item.action}-${item.seq}`}
        rows={list?.items.map((item, seq) => ({ ...item, seq }))}
        total={list?.total_count ?? 0}
        {...pager}
        loadingRows={6}
        error={error}
        empty={<EmptyState title={filter ? 'Nothing matches the filter' : 'No records yet'}>{filter ? 'Change or clear the filter.' : 'State-changing requests appear here as they happen.'}</EmptyState>}
      />
    </>
  );
}
