'use client';
/**
 * Pending folder invitations: the ones other users sent you (accept or decline) and the ones you sent (cancel
 * before they are answered). Each list shows only while it has something pending.
 */
import { useState, type ReactNode } from 'react';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ProblemAlert } from '@/components/ui/feedback';
import { PERMISSION_LABELS } from './useFolders';
import { acceptInvitation, deleteInvitation, useInvitations, useSentInvitations, type Invitation } from './useInvitations';

interface InvitationCardProps {
  title: string;
  testId: string;
  invitations: Invitation[] | undefined;
  loadError: unknown;
  /** Who is on the other side of the invitation, for a person. */
  counterpart: (invitation: Invitation) => string;
  /** The buttons of one invitation; `run` shows a failure in the card and disables every button meanwhile. */
  actions: (invitation: Invitation, run: (action: () => Promise<unknown>) => void, busy: boolean) => ReactNode;
}

function InvitationCard({ title, testId, invitations, loadError, counterpart, actions }: InvitationCardProps) {
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const pending = (invitations ?? []).filter((i) => i.state === 'pending');
  const titleId = `${testId}-title`;

  function run(action: () => Promise<unknown>) {
    setBusy(true);
    setActionError(null);
    action()
      .catch(setActionError)
      .finally(() => setBusy(false));
  }

  if (loadError && !invitations) return <ProblemAlert error={loadError} />;
  if (pending.length === 0) return null;
  return (
    <Card variant="outlined" component="section" aria-labelledby={titleId} data-testid={testId}>
      <Stack spacing={1} sx={{ p: 2 }}>
        <Typography id={titleId} variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
          {title}
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
              data-invitee={invitation.invitee}
              secondaryAction={
                <Stack direction="row" spacing={1}>
                  {actions(invitation, run, busy)}
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
                secondary={counterpart(invitation)}
                sx={{ pr: 22 }}
              />
            </ListItem>
          ))}
        </List>
      </Stack>
    </Card>
  );
}

/** The inbox: folders other users offered to share with you. */
export function Invitations({ onAccepted }: { onAccepted: () => void }) {
  const { data, error, mutate } = useInvitations();
  const answer = (invitation: Invitation, accept: boolean) => async () => {
    await (accept ? acceptInvitation(invitation.id) : deleteInvitation(invitation.id));
    await mutate();
    if (accept) onAccepted();
  };
  return (
    <InvitationCard
      title="Invitations"
      testId="invitations"
      invitations={data?.invitations}
      loadError={error}
      counterpart={(invitation) => `From ${invitation.inviter}`}
      actions={(invitation, run, busy) => (
        <>
          <Button size="small" disabled={busy} onClick={() => run(answer(invitation, false))}>
            Decline
          </Button>
          <Button size="small" variant="contained" disabled={busy} onClick={() => run(answer(invitation, true))}>
            Accept
          </Button>
        </>
      )}
    />
  );
}

/** Invitations you sent that nobody has answered yet. */
export function SentInvitations() {
  const { data, error, mutate } = useSentInvitations();
  const cancel = (invitation: Invitation) => async () => {
    await deleteInvitation(invitation.id);
    await mutate();
  };
  return (
    <InvitationCard
      title="Invitations you sent"
      testId="sent-invitations"
      invitations={data?.invitations}
      loadError={error}
      counterpart={(invitation) => `To ${invitation.invitee}, not answered yet`}
      actions={(invitation, run, busy) => (
        <Button
          size="small"
          disabled={busy}
          aria-label={`Cancel the invitation of ${invitation.invitee} to ${invitation.vfolder_name}`}
          onClick={() => run(cancel(invitation))}
        >
          Cancel
        </Button>
      )}
    />
  );
}
