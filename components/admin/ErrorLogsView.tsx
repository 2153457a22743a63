'use client';
/**
 * Error logs that clients (the CLI, the dashboard, scripts) reported to the manager: newest first, a page at a
 * time, each with its details on demand and a button to clear it once handled.
 */
import { Fragment, useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Collapse from '@mui/material/Collapse';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { clearErrorLog, useEmails, useErrorLogs, type ErrorLog } from './useErrorLogs';
import { ExpandMoreIcon } from '@/components/frame/icons';
import { formatDateTime } from './format';
import { EmptyState, ProblemAlert, VisuallyHidden } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { useToast } from '@/components/ui/useToast';
import { ActionsHeaderCell, ListCardContent, TablePager } from '@/components/ui/tableParts';
import { MONO } from '@/components/ui/CodeField';
import { usePaging } from '@/components/ui/usePaging';


const SEVERITY_COLORS: Record<string, 'error' | 'warning' | 'info' | 'default'> = { critical: 'error', error: 'error', warning: 'warning', info: 'info', debug: 'default' };


function Detail({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Box>
      <Typography variant="caption" color="text.secondary" component="div">
        {label}
      </Typography>
      {children}
    </Box>
  );
}

function Pre({ text }: { text: string }) {
  return (
    <Box component="pre" tabIndex={0} sx={{ m: 0, p: 1.5, fontFamily: MONO, fontSize: 12, whiteSpace: 'pre-wrap', wordBreak: 'break-word', bgcolor: 'action.hover', borderRadius: 1, maxHeight: 240, overflow: 'auto' }}>
      {text}
    </Box>
  );
}

function LogRow({ log, email, onClear }: { log: ErrorLog; email: string | undefined; onClear: (log: ErrorLog) => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const cleared = Boolean(log.is_cleared);
  const detailsId = `log-${log.log_id}`;
  return (
    <Fragment>
      <TableRow hover sx={{ '& > td': { borderBottom: open ? 0 : undefined }, opacity: cleared ? 0.6 : 1 }}>
        <TableCell padding="checkbox">
          <IconButton size="small" aria-label={open ? 'Hide details' : 'Show details'} aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen((v) => !v)}>
            <ExpandMoreIcon fontSize="small" sx={{ transform: open ? 'rotate(180deg)' : 'none', transition: 'transform 150ms' }} />
          </IconButton>
        </TableCell>
        <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(log.created_at * 1000)}</TableCell>
        <TableCell>
          <Chip size="small" label={log.severity} color={SEVERITY_COLORS[log.severity] ?? 'default'} variant="outlined" />
        </TableCell>
        <TableCell sx={{ display: { xs: 'none', md: 'table-cell' }, overflowWrap: 'anywhere' }}>{log.source}</TableCell>
        <TableCell sx={{ overflowWrap: 'anywhere', fontWeight: log.is_read ? 400 : 600 }}>{log.message}</TableCell>
        <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' }, overflowWrap: 'anywhere' }}>{email ?? log.user ?? '—'}</TableCell>
        <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
          {cleared ? (
            <Chip size="small" label="Cleared" variant="outlined" />
          ) : (
            <Button
              size="small"
              disabled={pending}
              onClick={() => {
                setPending(true);
                void onClear(log).finally(() => setPending(false));
              }}
            >
              Clear
            </Button>
          )}
        </TableCell>
      </TableRow>
      <TableRow>
        <TableCell colSpan={7} sx={{ py: 0 }}>
          <Collapse in={open} unmountOnExit id={detailsId}>
            <Stack spacing={1.5} sx={{ py: 2 }}>
              {log.request_url && (
                <Detail label="Request">
                  <Typography variant="body2" sx={{ fontFamily: MONO, overflowWrap: 'anywhere' }}>
                    {log.request_status ? `${log.request_status} ` : ''}
                    {log.request_url}
                  </Typography>
                </Detail>
              )}
              <Detail label="Client">
                <Typography variant="body2">
                  {log.source} · {log.context_lang}
                </Typography>
              </Detail>
              {log.context_env !== null && log.context_env !== undefined && (
                <Detail label="Context">
                  <Pre text={JSON.stringify(log.context_env, null, 2)} />
                </Detail>
              )}
              {log.traceback && (
                <Detail label="Traceback reported by the client">
                  <Pre text={log.traceback} />
                </Detail>
              )}
            </Stack>
          </Collapse>
        </TableCell>
      </TableRow>
    </Fragment>
  );
}

const PAGE_SIZES = [20, 50, 100];

export function ErrorLogsView() {
  const { page, pageSize, pager } = usePaging(PAGE_SIZES);
  const { data, error, mutate } = useErrorLogs(page, pageSize);
  const emails = useEmails((data?.logs ?? []).flatMap((l) => (l.user ? [l.user] : [])));
  const [clearError, setClearError] = useState<unknown>(null);
  const [toast, notify] = useToast();

  async function clear(log: ErrorLog) {
    setClearError(null);
    try {
      await clearErrorLog(log.log_id);
      await mutate();
      notify('The log is cleared.');
    } catch (err) {
      setClearError(err);
    }
  }

  return (
    <>
      <PageHeader title="Error logs" description="Errors that clients reported to the manager, newest first. Clear a log once it is handled." />
      <ProblemAlert error={clearError} onClose={() => setClearError(null)} sx={{ mb: 2 }} />
      <Card variant="outlined">
        <ListCardContent
          error={error}
          data={data}
          loadingRows={4}
          isEmpty={(d) => d.count === 0}
          empty={
            <EmptyState title="No error logs">Nothing has been reported. Clients report errors with POST /logs/error.</EmptyState>
          }
        >
          {(data) => (
            <>
              <TableContainer>
                <Table size="small" aria-label="Error logs" data-testid="error-logs-table">
                  <TableHead>
                    <TableRow>
                      <TableCell padding="checkbox">
                        <VisuallyHidden>Details</VisuallyHidden>
                      </TableCell>
                      <TableCell>Time</TableCell>
                      <TableCell>Severity</TableCell>
                      <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Source</TableCell>
                      <TableCell>Message</TableCell>
                      <TableCell sx={{ display: { xs: 'none', lg: 'table-cell' } }}>User</TableCell>
                      <ActionsHeaderCell />
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {data.logs.map((log) => (
                      <LogRow key={log.log_id} log={log} email={log.user ? emails.get(log.user) : undefined} onClear={clear} />
                    ))}
                  </TableBody>
                </Table>
              </TableContainer>
              <TablePager count={data.count} {...pager} />
            </>
          )}
        </ListCardContent>
      </Card>
      {toast}
    </>
  );
}
