'use client';
/** The invitations inbox: folders other users offered to share with you, to accept or decline. */
import { useState } from 'react';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ProblemAlert } from '@/components/admin/ui/feedback';
import { PERMISSION_LABELS } from './useFolders';
import { acceptInvitation, deleteInvitation, useInvitations, type Invitation } from './useInvitations';

export function Invitations({ onAccepted }: { onAccepted: () => void }) {
  const { data, error, mutate } = useInvitations();
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const pending = (data?.invitations ?? []).filter((i) => i.state === 'pending');

  async function act(invitation: Invitation, accept: boolean) {
    setBusy(invitation.id);
    setActionError(null);
    try {
      await (accept ? acceptInvitation(invitation.id) : deleteInvitation(invitation.id));
      await mutate();
      if (accept) onAccepted();
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(null);
    }
  }

  if (error && !data) return <ProblemAlert error={error} />;
  if (pending.length === 0) return null;
  return (
    <Card variant="outlined" component="section" aria-labelledby="invitations-title" data-testid="invitations">
      <Stack spacing={1} sx={{ p: 2 }}>
        <Typography id="invitations-title" variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
          Invitations
        </Typography>
        <ProblemAlert error={actionError} />
        <List disablePadding>
          {pending.map((invitation) => (
            <ListItem
              key={invitation.id}
              disableGutters
              divider
              data-testid="invitation"
              data-folder={invitation.vfolder_name}
              secondaryAction={
                <Stack direction="row" spacing={1}>
                  <Button size="small" onClick={() => void act(invitation, false)} disabled={busy !== null}>
                    Decline
                  </Button>
                  <Button size="small" variant="contained" onClick={() => void act(invitation, true)} disabled={busy !== null}>
                    Accept
                  </Button>
                </Stack>
              }
            >
              <ListItemText
                primary={
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                    <span>{invitation.vfolder_name}</span>
                    <Chip size="small" variant="outlined" label={PERMISSION_LABELS[invitation.perm]} />
                  </Stack>
                }
                secondary={`From ${invitation.inviter}`}
                sx={{ pr: 22 }}
              />
            </ListItem>
          ))}
        </List>
      </Stack>
    </Card>
  );
}
