'use client';
/**
 * Clone a cloneable folder into a new folder of your own. The copy runs as a background task on the manager; its
 * progress (files copied of all) arrives as events from /events/background-task through the relay.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import NextLink from 'next/link';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ProblemAlert } from '@/components/admin/ui/feedback';
import { RELAY_PREFIX } from '@/components/api/useManager';
import { cloneFolder, PERMISSION_LABELS, USAGE_LABELS, type FolderInfo, type Permission, type UsageMode } from './useFolders';

type Phase = { state: 'form' } | { state: 'copying'; id: string; name: string; current: number; total: number } | { state: 'done'; id: string; name: string } | { state: 'failed'; message: string };

interface TaskEvent {
  current_progress?: number;
  total_progress?: number;
  message?: string | null;
}

export function CloneDialog({ open, folder, onClose }: { open: boolean; folder: FolderInfo; onClose: () => void }) {
  const [name, setName] = useState('');
  const [usage, setUsage] = useState<UsageMode>(folder.usage_mode);
  const [permission, setPermission] = useState<Permission>('rw');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [phase, setPhase] = useState<Phase>({ state: 'form' });
  const events = useRef<EventSource | null>(null);

  useEffect(() => {
    if (open) {
      setName(`${folder.name}-copy`);
      setUsage(folder.usage_mode);
      setPermission('rw');
      setError(null);
      setPhase({ state: 'form' });
    }
  }, [open, folder.name, folder.usage_mode]);

  useEffect(() => () => events.current?.close(), []);

  function follow(taskId: string, target: { id: string; name: string }) {
    events.current?.close();
    const source = new EventSource(`${RELAY_PREFIX}/events/background-task?task_id=${encodeURIComponent(taskId)}`);
    events.current = source;
    const read = (event: MessageEvent): TaskEvent => {
      try {
        return JSON.parse(String(event.data)) as TaskEvent;
      } catch {
        return {};
      }
    };
    source.addEventListener('bgtask_updated', (event) => {
      const data = read(event as MessageEvent);
      setPhase({ state: 'copying', ...target, current: data.current_progress ?? 0, total: data.total_progress ?? 0 });
    });
    source.addEventListener('bgtask_done', () => {
      source.close();
      setPhase({ state: 'done', ...target });
    });
    for (const name of ['bgtask_failed', 'bgtask_cancelled']) {
      source.addEventListener(name, (event) => {
        source.close();
        setPhase({ state: 'failed', message: read(event as MessageEvent).message ?? 'The copy stopped.' });
      });
    }
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) setPhase((p) => (p.state === 'copying' ? { state: 'failed', message: 'The progress stream closed; see the folder list for the clone’s status.' } : p));
    };
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      const created = await cloneFolder(folder.id, { target_name: name, usage_mode: usage, permission, cloneable: false });
      setPhase({ state: 'copying', id: created.id, name: created.name, current: 0, total: 0 });
      follow(created.bgtask_id, { id: created.id, name: created.name });
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  }

  const percent = phase.state === 'copying' && phase.total > 0 ? Math.floor((phase.current / phase.total) * 100) : null;

  return (
    <Dialog open={open} onClose={pending ? undefined : onClose} maxWidth="xs" fullWidth aria-labelledby="clone-dialog-title">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <DialogTitle id="clone-dialog-title">Clone {folder.name}</DialogTitle>
        <DialogContent>
          {phase.state === 'form' ? (
            <Stack spacing={2.5} sx={{ pt: 1 }}>
              <TextField label="New folder name" value={name} onChange={(e) => setName(e.target.value.trim())} autoFocus required />
              <TextField select label="Usage" value={usage} onChange={(e) => setUsage(e.target.value as UsageMode)}>
                {Object.entries(USAGE_LABELS).map(([value, label]) => (
                  <MenuItem key={value} value={value}>
                    {label}
                  </MenuItem>
                ))}
              </TextField>
              <TextField select label="Your permission" value={permission} onChange={(e) => setPermission(e.target.value as Permission)}>
                {Object.entries(PERMISSION_LABELS).map(([value, label]) => (
                  <MenuItem key={value} value={value}>
                    {label}
                  </MenuItem>
                ))}
              </TextField>
              <ProblemAlert error={error} />
            </Stack>
          ) : phase.state === 'copying' ? (
            <Box sx={{ pt: 1 }} data-testid="clone-progress">
              <Typography variant="body2" sx={{ mb: 1 }}>
                Copying into {phase.name}… {phase.total > 0 ? `${phase.current} of ${phase.total} files` : ''}
              </Typography>
              <LinearProgress variant={percent === null ? 'indeterminate' : 'determinate'} value={percent ?? 0} aria-label="Clone progress" />
            </Box>
          ) : phase.state === 'done' ? (
            <Alert severity="success" data-testid="clone-done">
              Cloned into{' '}
              <NextLink href={`/folders/${phase.id}`} onClick={onClose}>
                {phase.name}
              </NextLink>
              .
            </Alert>
          ) : (
            <Alert severity="error">{phase.message}</Alert>
          )}
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={onClose} disabled={pending}>
            {phase.state === 'form' ? 'Cancel' : 'Close'}
          </Button>
          {phase.state === 'form' && (
            <Button type="submit" variant="contained" disabled={pending || !name}>
              Clone
            </Button>
          )}
        </DialogActions>
      </form>
    </Dialog>
  );
}
