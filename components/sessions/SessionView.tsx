'use client';
/**
 * One session: its status (live) and facts, its apps, and tabs for terminals, a code console, files and logs;
 * rename, restart and terminate (each confirmed). Terminals and the console open once the session runs.
 */
import { useState, type ReactNode } from 'react';
import NextLink from 'next/link';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import DialogContentText from '@mui/material/DialogContentText';
import Grid from '@mui/material/Grid';
import IconButton from '@mui/material/IconButton';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { ArrowBackIcon, EditIcon, RestartIcon, StopIcon } from '@/components/frame/icons';
import { CodeConsole } from './CodeConsole';
import { ProblemAlert, StatusChip, useDelayed } from './common';
import { formatDateTime, formatSlots, FINISHED_STATUSES, queueWords, type SessionInfo } from './model';
import { SessionApps } from './SessionApps';
import { CommitDialog, RenameDialog } from './SessionDialogs';
import { SessionFiles } from './SessionFiles';
import { FactRow } from '@/components/ui/FactRow';
import { SessionLogs } from './SessionLogs';
import { SessionSsh } from './SessionSsh';
import { SessionTerminals } from './SessionTerminals';
import { commitSession, isUsable, renameSession, restartSession, terminateSession, useSession } from './useSessions';
import { IdleTimeLeft, LifetimeLeft } from './TimeLeft';

type TabName = 'terminal' | 'console' | 'files' | 'logs';

/** The session's facts share one label column. */
function Fact(props: { label: string; children: ReactNode; testId?: string }) {
  return <FactRow {...props} labelWidth={120} py={0.5} />;
}

function Facts({ info }: { info: SessionInfo }) {
  return (
    <Card variant="outlined" sx={{ height: '100%' }}>
      <CardContent>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>
          Details
        </Typography>
        <Fact label="Image">{info.image}</Fact>
        <Fact label="Type">{info.type}</Fact>
        <Fact label="Resources">
          {formatSlots(Object.keys(info.occupiedSlots).length ? info.occupiedSlots : info.requestedSlots)}
          {info.clusterSize > 1 ? ` × ${info.clusterSize} containers` : ''}
        </Fact>
        <Fact label="Started">{formatDateTime(info.creationTime)}</Fact>
        {info.terminationTime && <Fact label="Ended">{formatDateTime(info.terminationTime)}</Fact>}
        {info.idleChecks?.idle_timeout && (
          <Fact label="Idle timeout" testId="fact-idle-timeout">
            <IdleTimeLeft checks={info.idleChecks} />
          </Fact>
        )}
        {info.idleChecks?.session_lifetime && (
          <Fact label="Lifetime" testId="fact-lifetime">
            <LifetimeLeft checks={info.idleChecks} />
          </Fact>
        )}
        {info.type === 'batch' && info.result !== 'undefined' && <Fact label="Result">{info.result}</Fact>}
        <Fact label="Session ID">
          <Box component="code" sx={{ fontSize: 12 }}>
            {info.sessionId}
          </Box>
        </Fact>
      </CardContent>
    </Card>
  );
}

function Unavailable({ info, what }: { info: SessionInfo; what: string }) {
  const finished = FINISHED_STATUSES.includes(info.status);
  return (
    <Stack spacing={1} sx={{ py: 6, alignItems: 'center', textAlign: 'center' }}>
      {!finished && info.status !== 'ERROR' && <CircularProgress size={28} />}
      <Typography sx={{ fontWeight: 600 }}>
        {finished ? 'This session has ended.' : info.status === 'ERROR' ? 'This session failed.' : 'The session is starting…'}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {finished || info.status === 'ERROR' ? `${what} needs a running session.` : `${what} opens as soon as it runs.`}
      </Typography>
    </Stack>
  );
}

export function SessionView({ id }: { id: string }) {
  const { data: info, error, mutate } = useSession(id);
  const showSkeleton = useDelayed(!info && !error);
  const [tab, setTab] = useState<TabName>('terminal');
  const [dialog, setDialog] = useState<'terminate' | 'restart' | 'rename' | 'commit' | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  // Bumped by a restart: the kernels are new, so the terminals open new shells.
  const [restarts, setRestarts] = useState(0);
  const usable = isUsable(info);
  const finished = info ? FINISHED_STATUSES.includes(info.status) : false;

  if (error && !info) {
    return (
      <Stack spacing={2} sx={{ maxWidth: 720 }}>
        <ProblemAlert error={error} />
        <Box>
          <Button component={NextLink} href="/sessions" startIcon={<ArrowBackIcon />}>
            All sessions
          </Button>
        </Box>
      </Stack>
    );
  }
  if (!info) {
    return showSkeleton ? (
      <Stack spacing={3}>
        <Skeleton variant="text" width={280} height={40} />
        <Skeleton variant="rounded" height={180} />
        <Skeleton variant="rounded" height={360} />
      </Stack>
    ) : null;
  }

  return (
    <Stack spacing={3}>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ justifyContent: 'space-between', alignItems: { md: 'center' } }}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', minWidth: 0 }}>
          <IconButton component={NextLink} href="/sessions" aria-label="All sessions" edge="start">
            <ArrowBackIcon />
          </IconButton>
          <Typography variant="h5" component="h1" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }} data-testid="session-name">
            {info.sessionName}
          </Typography>
          {info.status === 'RUNNING' && (
            <Tooltip title="Rename">
              <IconButton size="small" aria-label="Rename session" onClick={() => setDialog('rename')}>
                <EditIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          )}
          <StatusChip status={info.status} size="medium" />
        </Stack>
        {!finished && (
          <Stack direction="row" spacing={1}>
            <Button onClick={() => setDialog('commit')} disabled={info.status !== 'RUNNING'}>
              Save as image
            </Button>
            <Button startIcon={<RestartIcon />} onClick={() => setDialog('restart')} disabled={!usable}>
              Restart
            </Button>
            <Button color="error" variant="outlined" startIcon={<StopIcon />} onClick={() => setDialog('terminate')} disabled={info.status === 'TERMINATING'}>
              Terminate
            </Button>
          </Stack>
        )}
      </Stack>

      {saved && (
        <Alert severity="success" onClose={() => setSaved(null)} data-testid="commit-saved">
          Saved as <strong>{saved}</strong>: launch it from the launcher, under “Your images”.
        </Alert>
      )}
      {info.statusInfo && (info.status === 'ERROR' || finished || info.status === 'PENDING') && (
        <Typography variant="body2" color={info.status === 'ERROR' ? 'error' : 'text.secondary'} data-testid="status-info">
          {info.status === 'PENDING' ? 'Waiting: ' : 'Reason: '}
          {info.statusInfo}
        </Typography>
      )}
      {info.status === 'PENDING' && (
        <Typography variant="body2" color="text.secondary" data-testid="queue-place">
          In the queue: {queueWords(info.queuePosition, info.estimatedStart)}.
        </Typography>
      )}

      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 7 }}>
          <Facts info={info} />
        </Grid>
        <Grid size={{ xs: 12, md: 5 }}>
          <Card variant="outlined" sx={{ height: '100%' }}>
            <CardContent>
              <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1.5 }}>
                Apps
              </Typography>
              {finished ? (
                <Typography variant="body2" color="text.secondary">
                  Apps are gone with the session.
                </Typography>
              ) : (
                <SessionApps sessionId={info.sessionId} usable={usable} />
              )}
            </CardContent>
          </Card>
        </Grid>
      </Grid>

      {usable && <SessionSsh sessionId={info.sessionId} sessionName={info.sessionName} />}

      <Card variant="outlined">
        <Tabs value={tab} onChange={(_e, v: TabName) => setTab(v)} aria-label="Session tools" sx={{ px: 2, borderBottom: 1, borderColor: 'divider' }} variant="scrollable">
          <Tab value="terminal" label="Terminal" />
          <Tab value="console" label="Console" />
          <Tab value="files" label="Files" />
          <Tab value="logs" label="Logs" />
        </Tabs>
        <Box sx={{ p: 2 }}>
          {/* Terminals stay mounted while another tab is shown, so switching tabs never drops a shell. */}
          <Box sx={{ display: tab === 'terminal' ? 'block' : 'none' }}>
            {usable ? <SessionTerminals key={restarts} sessionId={info.sessionId} visible={tab === 'terminal'} /> : <Unavailable info={info} what="The terminal" />}
          </Box>
          {tab === 'console' && (usable ? <CodeConsole sessionId={info.sessionId} /> : <Unavailable info={info} what="The console" />)}
          {tab === 'files' && (usable ? <SessionFiles sessionId={info.sessionId} /> : <Unavailable info={info} what="The file browser" />)}
          {tab === 'logs' && <SessionLogs sessionId={info.sessionId} />}
        </Box>
      </Card>

      <ConfirmDialog
        open={dialog === 'terminate'}
        title={`Terminate ${info.sessionName}?`}
        confirmLabel="Terminate"
        danger
        onConfirm={async () => {
          await terminateSession(info.sessionId, info.status);
          await mutate();
        }}
        onClose={() => setDialog(null)}
      >
        <DialogContentText>The session&apos;s containers stop and its files in /home/work are deleted. Files in mounted folders are kept.</DialogContentText>
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === 'restart'}
        title={`Restart ${info.sessionName}?`}
        confirmLabel="Restart"
        onConfirm={async () => {
          await restartSession(info.sessionId);
          setRestarts((n) => n + 1);
          await mutate();
        }}
        onClose={() => setDialog(null)}
      >
        <DialogContentText>Running programs end and the terminals start new shells; files in /home/work are kept.</DialogContentText>
      </ConfirmDialog>
      <CommitDialog
        open={dialog === 'commit'}
        onCommit={async (tag) => setSaved(await commitSession(info.sessionId, tag))}
        onClose={() => setDialog(null)}
      />
      <RenameDialog
        open={dialog === 'rename'}
        current={info.sessionName}
        onRename={async (name) => {
          await renameSession(info.sessionId, name);
          await mutate();
        }}
        onClose={() => setDialog(null)}
      />
    </Stack>
  );
}
