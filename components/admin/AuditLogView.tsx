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
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import { useAuditLog } from './useAuditLog';
import { formatDateTime } from './format';
import { EmptyState } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { ListCardContent, TablePager } from '@/components/ui/tableParts';

const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';

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

export function AuditLogView() {
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(50);
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
      <Card variant="outlined">
        <ListCardContent
          error={error}
          data={list}
          loadingRows={6}
          isEmpty={(d) => d.total_count === 0}
          empty={<EmptyState title={filter ? 'Nothing matches the filter' : 'No records yet'}>{filter ? 'Change or clear the filter.' : 'State-changing requests appear here as they happen.'}</EmptyState>}
        >
          {(d) => (
            <>
              <TableContainer>
                <Table size="small" aria-label="Audit log" data-testid="audit-log-table">
                  <TableHead>
                    <TableRow>
                      <TableCell>Time</TableCell>
                      <TableCell>Actor</TableCell>
                      <TableCell>Action</TableCell>
                      <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Target</TableCell>
                      <TableCell>Status</TableCell>
                      <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' } }}>Client</TableCell>
                      <TableCell sx={{ display: { xs: 'none', xl: 'table-cell' } }}>Request</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {d.items.map((item, i) => (
                      <TableRow key={`${item.request_id}-${item.action}-${i}`} hover>
                        <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(item.created_at)}</TableCell>
                        <TableCell sx={{ overflowWrap: 'anywhere' }}>{item.actor_email ?? '—'}</TableCell>
                        <TableCell sx={{ fontFamily: MONO, fontSize: 13, overflowWrap: 'anywhere' }}>{item.action}</TableCell>
                        <TableCell sx={{ display: { xs: 'none', md: 'table-cell' }, overflowWrap: 'anywhere' }}>{targetText(item.target)}</TableCell>
                        <TableCell>
                          <Chip size="small" variant="outlined" label={item.status} color={statusColor(item.status)} />
                        </TableCell>
                        <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' } }}>{item.client_ip || '—'}</TableCell>
                        <TableCell sx={{ display: { xs: 'none', xl: 'table-cell' }, fontFamily: MONO, fontSize: 12 }}>{item.request_id || '—'}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </TableContainer>
              <TablePager count={d.total_count} page={page} onPage={setPage} pageSize={pageSize} onPageSize={setPageSize} pageSizes={[20, 50, 100]} />
            </>
          )}
        </ListCardContent>
      </Card>
    </>
  );
}
