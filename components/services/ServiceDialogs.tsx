'use client';
/**
 * The actions on one model service: scale it, issue a token for its callers (shown once, to copy), and delete it
 * after a confirmation. Each dialog shows the manager's refusal in place.
 */
import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { CopyButton } from '@/components/ui/CopyButton';
import { FormDialog } from '@/components/ui/FormDialog';
import { deleteService, durationProblem, issueServiceToken, scaleService, type ServeInfo } from './useServices';

export type ServiceAction = 'scale' | 'token' | 'delete' | null;

function ScaleDialog({ service, open, onClose, onDone }: { service: ServeInfo; open: boolean; onClose: () => void; onDone: (message: string) => Promise<unknown> }) {
  const [to, setTo] = useState('');
  const count = Number(to);
  const problem = to !== '' && Number.isInteger(count) && count >= 0 ? null : 'A whole number, 0 or more.';
  return (
    <FormDialog
      open={open}
      title={`Scale ${service.name}`}
      submitLabel="Scale"
      submitDisabled={Boolean(problem) || count === service.desired_session_count}
      onOpen={() => setTo(String(service.desired_session_count))}
      onSubmit={async () => {
        await scaleService(service.endpoint_id, count);
        onClose();
        await onDone(`Scaling ${service.name} to ${count}`);
      }}
      onClose={onClose}
    >
      <TextField
        label="Replicas"
        type="number"
        value={to}
        onChange={(e) => setTo(e.target.value)}
        autoFocus
        error={Boolean(problem)}
        helperText={problem ?? 'New sessions start until this many routes run; extra ones stop, unhealthy ones first.'}
        slotProps={{ htmlInput: { min: 0, step: 1, 'data-testid': 'scale-input' } }}
      />
    </FormDialog>
  );
}

function TokenDialog({ service, open, onClose }: { service: ServeInfo; open: boolean; onClose: () => void }) {
  const [duration, setDuration] = useState('30d');
  const [token, setToken] = useState<string | null>(null);
  const problem = durationProblem(duration);
  return (
    <FormDialog
      open={open}
      title={token ? 'Your token' : `Issue a token for ${service.name}`}
      submitLabel="Issue"
      maxWidth="sm"
      hideSubmit={token !== null}
      cancelLabel={token ? 'Done' : 'Cancel'}
      submitDisabled={Boolean(problem)}
      onOpen={() => {
        setDuration('30d');
        setToken(null);
      }}
      onSubmit={async () => setToken((await issueServiceToken(service.endpoint_id, duration)).token)}
      onClose={onClose}
    >
      {token ? (
        <Stack spacing={1.5}>
          <Alert severity="warning">This token is shown only once. Copy it now; issue a new one if it is lost.</Alert>
          <Typography variant="body2" sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere', p: 1.5, bgcolor: 'action.hover', borderRadius: 1 }} data-testid="service-token">
            {token}
          </Typography>
          <div>
            <CopyButton text={token} label="Copy token" />
          </div>
          <Typography variant="body2" color="text.secondary">
            Callers send it as <code>Authorization: Bearer &lt;token&gt;</code>.
          </Typography>
        </Stack>
      ) : (
        <TextField
          label="Valid for"
          value={duration}
          onChange={(e) => setDuration(e.target.value.trim())}
          autoFocus
          error={Boolean(problem)}
          helperText={problem ?? 'Units y, d, h, m, s: 30d, 12h, 1y.'}
          slotProps={{ htmlInput: { 'data-testid': 'token-duration-input', autoComplete: 'off' } }}
        />
      )}
    </FormDialog>
  );
}

export function ServiceDialogs({
  service,
  action,
  onClose,
  onDone,
  onDeleted,
}: {
  service: ServeInfo;
  action: ServiceAction;
  onClose: () => void;
  onDone: (message: string) => Promise<unknown>;
  onDeleted: () => void;
}) {
  return (
    <>
      <ScaleDialog service={service} open={action === 'scale'} onClose={onClose} onDone={onDone} />
      <TokenDialog service={service} open={action === 'token'} onClose={onClose} />
      <ConfirmDialog
        open={action === 'delete'}
        title={`Delete ${service.name}?`}
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await deleteService(service.endpoint_id);
          onDeleted();
        }}
        onClose={onClose}
      >
        <Typography>
          Its sessions stop and its URL stops answering; tokens issued for it no longer work. The model folder and its files stay.
        </Typography>
      </ConfirmDialog>
    </>
  );
}
