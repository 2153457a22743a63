'use client';
/** Invite people to a folder by email, read-only or read-write; they see the invitation on their Folders page. */
import { useEffect, useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { ProblemAlert } from '@/components/admin/ui/feedback';
import { inviteToFolder, PERMISSION_LABELS, type Permission } from './useFolders';

const EMAIL = /^[^\s@,;]+@[^\s@,;]+$/;

export function ShareDialog({ open, folderId, folderName, onClose }: { open: boolean; folderId: string; folderName: string; onClose: () => void }) {
  const [emails, setEmails] = useState('');
  const [perm, setPerm] = useState<Permission>('ro');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [invited, setInvited] = useState<string[] | null>(null);

  useEffect(() => {
    if (open) {
      setEmails('');
      setPerm('ro');
      setError(null);
      setInvited(null);
    }
  }, [open]);

  const list = emails.split(/[\s,;]+/).filter(Boolean);
  const invalid = list.filter((e) => !EMAIL.test(e));

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (list.length === 0 || invalid.length) return;
    setPending(true);
    setError(null);
    try {
      const answer = await inviteToFolder(folderId, perm, list);
      setInvited(answer.invited_ids);
      setEmails('');
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  }

  return (
    <Dialog open={open} onClose={pending ? undefined : onClose} maxWidth="sm" fullWidth aria-labelledby="share-dialog-title">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <DialogTitle id="share-dialog-title">Share {folderName}</DialogTitle>
        <DialogContent>
          <Stack spacing={2.5} sx={{ pt: 1 }}>
            <DialogContentText>Each person gets an invitation on their Folders page; the folder is shared once they accept it.</DialogContentText>
            <TextField
              label="Email addresses"
              value={emails}
              onChange={(e) => setEmails(e.target.value)}
              autoFocus
              fullWidth
              error={invalid.length > 0}
              helperText={invalid.length ? `Not an email address: ${invalid.join(', ')}` : 'Separate several addresses with commas or spaces.'}
              slotProps={{ htmlInput: { 'data-testid': 'share-emails', autoComplete: 'off' } }}
            />
            <TextField select label="Permission" value={perm} onChange={(e) => setPerm(e.target.value as Permission)} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'share-permission' } as object } }}>
              {(['ro', 'rw'] as const).map((value) => (
                <MenuItem key={value} value={value}>
                  {PERMISSION_LABELS[value]}
                </MenuItem>
              ))}
            </TextField>
            <ProblemAlert error={error} />
            {invited && (
              <Alert severity={invited.length ? 'success' : 'info'} data-testid="share-result">
                {invited.length ? `Invited ${invited.join(', ')}.` : 'Everyone listed already has access or a pending invitation.'}
              </Alert>
            )}
          </Stack>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={onClose} disabled={pending}>
            {invited ? 'Done' : 'Cancel'}
          </Button>
          <Button type="submit" variant="contained" disabled={pending || list.length === 0 || invalid.length > 0}>
            Invite
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
