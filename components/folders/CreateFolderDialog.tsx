'use client';
/** Create a folder: its name, what it is for, the owner's permission on it, and whether others may clone it. */
import { useEffect, useState, type FormEvent } from 'react';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import { ProblemAlert } from '@/components/admin/ui/feedback';
import { createFolder, PERMISSION_LABELS, USAGE_LABELS, type Permission, type UsageMode } from './useFolders';

const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export function CreateFolderDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (folder: { id: string; name: string }) => void }) {
  const [name, setName] = useState('');
  const [usage, setUsage] = useState<UsageMode>('general');
  const [permission, setPermission] = useState<Permission>('rw');
  const [cloneable, setCloneable] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (open) {
      setName('');
      setUsage('general');
      setPermission('rw');
      setCloneable(false);
      setError(null);
    }
  }, [open]);

  const nameProblem = name && !NAME_PATTERN.test(name) ? 'Use letters, digits, dots, dashes and underscores (at most 64).' : null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!name || nameProblem) return;
    setPending(true);
    setError(null);
    try {
      const created = await createFolder({ name, usage_mode: usage, permission, cloneable });
      onCreated(created);
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  }

  return (
    <Dialog open={open} onClose={pending ? undefined : onClose} maxWidth="xs" fullWidth aria-labelledby="create-folder-title">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <DialogTitle id="create-folder-title">New folder</DialogTitle>
        <DialogContent>
          <Stack spacing={2.5} sx={{ pt: 1 }}>
            <TextField
              label="Name"
              value={name}
              onChange={(e) => setName(e.target.value.trim())}
              autoFocus
              required
              error={Boolean(nameProblem)}
              helperText={nameProblem ?? 'Mounted into sessions under /home/work/<name>.'}
              slotProps={{ htmlInput: { 'data-testid': 'folder-name-input', autoComplete: 'off' } }}
            />
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
            <FormControlLabel control={<Switch checked={cloneable} onChange={(e) => setCloneable(e.target.checked)} />} label="Others with access may clone it" />
            <ProblemAlert error={error} />
          </Stack>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={pending || !name || Boolean(nameProblem)}>
            Create
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
