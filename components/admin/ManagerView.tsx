'use client';
/**
 * The manager (superadmins): its status with freeze and unfreeze, each behind a confirmation that says what
 * happens (and what `force_kill` adds), and the announcement shown across the top of every user's dashboard.
 */
import { useEffect, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { saveAnnouncement, setManagerStatus, useManagerStatus } from './useManagerStatus';
import { useAnnouncement } from '@/components/frame/useAnnouncement';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { Loaded } from '@/components/ui/feedback';
import { SectionCard } from '@/components/ui/SectionCard';
import { useSending } from '@/components/ui/useSending';
import { CardsPage } from '@/components/ui/CardsPage';
import { SaveOrDiscard } from '@/components/ui/FormActions';

const MAX_ANNOUNCEMENT = 64 * 1024;

function Fact({ label, value, testId }: { label: string; value: string | number; testId?: string }) {
  return (
    <Box>
      <Typography variant="caption" color="text.secondary" component="div">
        {label}
      </Typography>
      <Typography variant="body2" data-testid={testId} sx={{ overflowWrap: 'anywhere' }}>
        {value}
      </Typography>
    </Box>
  );
}

function StatusCard({ notify }: { notify: (message: string) => void }) {
  const { data, error } = useManagerStatus();
  const [freezing, setFreezing] = useState(false);
  const [unfreezing, setUnfreezing] = useState(false);
  const [forceKill, setForceKill] = useState(false);
  const frozen = data?.status === 'frozen';
  const node = data?.nodes[0];

  async function setStatus(status: 'running' | 'frozen', force: boolean) {
    await setManagerStatus(status, force);
    notify(status === 'frozen' ? 'The manager is frozen.' : 'The manager is running again.');
  }

  return (
    <SectionCard
      id="status"
      title="Status"
      description="Freezing the manager stops new work for maintenance: starting sessions, creating folders and other changes are refused with “server frozen” until you unfreeze it. Reading keeps working."
      actions={
        data &&
        (frozen ? (
          <Button variant="contained" onClick={() => setUnfreezing(true)}>
            Unfreeze
          </Button>
        ) : (
          <Button variant="outlined" color="warning" onClick={() => setFreezing(true)}>
            Freeze…
          </Button>
        ))
      }
    >
      <Loaded error={error} data={data} rows={2}>
        {(data) => (
          <Stack spacing={2}>
            <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
              <Chip label={frozen ? 'Frozen' : 'Running'} color={frozen ? 'warning' : 'success'} data-testid="manager-status" />
              <Typography variant="body2" color="text.secondary">
                {data.active_sessions === 1 ? '1 active session' : `${data.active_sessions} active sessions`}
              </Typography>
            </Stack>
            {frozen && <Alert severity="warning">Users cannot start sessions or make changes until the manager is unfrozen.</Alert>}
            {node && (
              <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr 1fr', md: 'repeat(4, minmax(0, 1fr))' } }}>
                <Fact label="Node" value={node.id} />
                <Fact label="Address" value={node.service_addr} />
                <Fact label="Version" value={node.version} />
                <Fact label="API" value={`v${node.api_version[0]}.${node.api_version[1]}`} />
              </Box>
            )}
          </Stack>
        )}
      </Loaded>
      <ConfirmDialog
        open={freezing}
        title="Freeze the manager?"
        confirmLabel={forceKill ? 'Terminate sessions and freeze' : 'Freeze'}
        danger={forceKill}
        onConfirm={() => setStatus('frozen', forceKill)}
        onClose={() => {
          setFreezing(false);
          setForceKill(false);
        }}
      >
        <Typography variant="body2">
          While frozen, every user is refused when they start a session or change anything, with a message that the server is in maintenance.
          Sessions already running keep running, and everyone can still read their data.
        </Typography>
        <FormControlLabel
          control={<Checkbox checked={forceKill} onChange={(e) => setForceKill(e.target.checked)} />}
          label={
            <span>
              Also terminate every running session first (force kill)
              <Typography variant="caption" color="text.secondary" component="span" sx={{ display: 'block' }}>
                {data?.active_sessions ? `${data.active_sessions} active now. ` : ''}Unsaved work inside them is lost; use it before host maintenance.
              </Typography>
            </span>
          }
        />
      </ConfirmDialog>
      <ConfirmDialog
        open={unfreezing}
        title="Unfreeze the manager?"
        confirmLabel="Unfreeze"
        onConfirm={() => setStatus('running', false)}
        onClose={() => setUnfreezing(false)}
      >
        <Typography variant="body2">Users can start sessions and make changes again.</Typography>
      </ConfirmDialog>
    </SectionCard>
  );
}

function AnnouncementCard({ notify }: { notify: (message: string) => void }) {
  const { data, error } = useAnnouncement();
  const [enabled, setEnabled] = useState(false);
  const [message, setMessage] = useState('');
  const [loaded, setLoaded] = useState(false);
  const { pending, error: saveError, send } = useSending();

  useEffect(() => {
    if (data && !loaded) {
      // eslint-disable-next-line react-hooks/set-state-in-effect -- the form starts from the announcement once it has loaded
      setEnabled(data.enabled);
      setMessage(data.message);
      setLoaded(true);
    }
  }, [data, loaded]);

  const emptyWhileEnabled = enabled && !message.trim();
  const tooLong = message.length > MAX_ANNOUNCEMENT;
  const dirty = data !== undefined && (enabled !== data.enabled || message !== data.message);

  async function save() {
    if (emptyWhileEnabled || tooLong) return;
    await send(async () => {
      await saveAnnouncement({ enabled, message });
      notify(enabled ? 'The announcement is shown to everyone.' : 'The announcement is hidden.');
    });
  }

  return (
    <SectionCard id="announcement" title="Announcement" description="A message across the top of every signed-in page, such as planned maintenance.">
      <Loaded error={error} data={loaded ? data : undefined} rows={3}>
        {() => (
          <Stack spacing={2}>
            <TextField
              label="Message"
              name="announcement"
              multiline
              minRows={3}
              value={message}
              onChange={(e) => setMessage(e.target.value)}
              error={emptyWhileEnabled || tooLong}
              helperText={emptyWhileEnabled ? 'Write the message to show, or turn the announcement off.' : tooLong ? 'At most 64 KiB.' : 'Line breaks are kept.'}
            />
            <FormControlLabel control={<Switch checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />} label="Show to everyone" />
            <SaveOrDiscard
              error={saveError}
              saveLabel="Save announcement"
              busy={pending}
              dirty={dirty}
              invalid={emptyWhileEnabled || tooLong}
              onSave={() => void save()}
              onDiscard={() => {
                if (!data) return;
                setEnabled(data.enabled);
                setMessage(data.message);
              }}
            />
          </Stack>
        )}
      </Loaded>
    </SectionCard>
  );
}

export function ManagerView() {
  return (
    <CardsPage title="Manager" description="The manager's state and the announcement every user sees.">
      {(notify) => (
        <>
          <StatusCard notify={notify} />
          <AnnouncementCard notify={notify} />
        </>
      )}
    </CardsPage>
  );
}
