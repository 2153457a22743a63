'use client';
/** Invite people to a folder by email, read-only or read-write; they see the invitation on their Folders page. */
import { useState } from 'react';
import Alert from '@mui/material/Alert';
import DialogContentText from '@mui/material/DialogContentText';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { PERMISSION_LABELS, type Permission } from './useFolders';
import { inviteToFolder } from './useInvitations';

const EMAIL = /^[^\s@,;]+@[^\s@,;]+$/;

export function ShareDialog({ open, folderId, folderName, onClose }: { open: boolean; folderId: string; folderName: string; onClose: () => void }) {
  const [emails, setEmails] = useState('');
  const [perm, setPerm] = useState<Permission>('ro');
  const [invited, setInvited] = useState<string[] | null>(null);

  const list = emails.split(/[\s,;]+/).filter(Boolean);
  const invalid = list.filter((e) => !EMAIL.test(e));

  return (
    <FormDialog
      open={open}
      title={`Share ${folderName}`}
      submitLabel="Invite"
      submitDisabled={list.length === 0 || invalid.length > 0}
      cancelLabel={invited ? 'Done' : 'Cancel'}
      maxWidth="sm"
      onOpen={() => {
        setEmails('');
        setPerm('ro');
        setInvited(null);
      }}
      onSubmit={async () => {
        const answer = await inviteToFolder(folderId, perm, list);
        setInvited(answer.invited_ids);
        setEmails('');
      }}
      onClose={onClose}
    >
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
      {invited && (
        <Alert severity={invited.length ? 'success' : 'info'} data-testid="share-result">
          {invited.length ? `Invited ${invited.join(', ')}.` : 'Everyone listed already has access or a pending invitation.'}
        </Alert>
      )}
    </FormDialog>
  );
}
