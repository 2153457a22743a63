'use client';
/**
 * Clone a cloneable folder into a new folder of your own. The copy runs as a background task on the manager; its
 * progress (files copied of all) arrives as events from /events/background-task through the relay.
 */
import { useEffect, useRef, useState } from 'react';
import NextLink from 'next/link';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { FormDialog } from '@/components/ui/FormDialog';
import { RELAY_PREFIX } from '@/components/api/useManager';
import { PermissionSelect, UsageSelect } from './FolderFields';
import { cloneFolder, type FolderInfo, type Permission, type UsageMode } from './useFolders';

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
  const [phase, setPhase] = useState<Phase>({ state: 'form' });
  const events = useRef<EventSource | null>(null);

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

  const percent = phase.state === 'copying' && phase.total > 0 ? Math.floor((phase.current / phase.total) * 100) : null;

  return (
    <FormDialog
      open={open}
      title={`Clone ${folder.name}`}
      submitLabel="Clone"
      submitDisabled={!name}
      hideSubmit={phase.state !== 'form'}
      cancelLabel={phase.state === 'form' ? 'Cancel' : 'Close'}
      onOpen={() => {
        setName(`${folder.name}-copy`);
        setUsage(folder.usage_mode);
        setPermission('rw');
        setPhase({ state: 'form' });
      }}
      onSubmit={async () => {
        const created = await cloneFolder(folder.id, { target_name: name, usage_mode: usage, permission, cloneable: false });
        setPhase({ state: 'copying', id: created.id, name: created.name, current: 0, total: 0 });
        follow(created.bgtask_id, { id: created.id, name: created.name });
      }}
      onClose={onClose}
    >
      {phase.state === 'form' ? (
        <>
          <TextField label="New folder name" value={name} onChange={(e) => setName(e.target.value.trim())} autoFocus required />
          <UsageSelect value={usage} onChange={setUsage} />
          <PermissionSelect value={permission} onChange={setPermission} />
        </>
      ) : phase.state === 'copying' ? (
        <Box data-testid="clone-progress">
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
    </FormDialog>
  );
}
