'use client';
/** The caller's account: who they are (read-only) and the full name they can change. */
import { useEffect, useState, type FormEvent } from 'react';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Loaded, ProblemAlert } from '@/components/ui/feedback';
import { SectionCard } from '@/components/ui/SectionCard';
import { FullNameField } from '@/components/auth/AccountFields';
import { updateFullName, useAccount } from './useSettings';
import { useSending } from '@/components/ui/useSending';
import { BusyButton } from '@/components/ui/BusyButton';
import { RowForm } from '@/components/ui/RowForm';

const MAX_FULL_NAME = 64;

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <Box sx={{ minWidth: 0 }}>
      <Typography variant="caption" color="text.secondary" component="div">
        {label}
      </Typography>
      <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
        {value}
      </Typography>
    </Box>
  );
}

export function ProfileCard({ onSaved }: { onSaved: (message: string) => void }) {
  const { data, error } = useAccount();
  const account = data?.user ?? null;
  const [fullName, setFullName] = useState('');
  const { pending, error: saveError, send } = useSending();

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the form starts from the account once it has loaded
    if (account) setFullName(account.full_name ?? '');
  }, [account]);

  const tooLong = fullName.length > MAX_FULL_NAME;
  const unchanged = fullName === (account?.full_name ?? '');

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!account || tooLong) return;
    await send(async () => {
      await updateFullName(account.email, fullName.trim());
      onSaved('Your full name is saved.');
    });
  }

  return (
    <SectionCard id="profile" title="Profile" description="Who you are signed in as, and the name administrators see next to your email.">
      <Loaded error={error} data={account} rows={2}>
        {(account) => (
          <Stack spacing={3}>
            <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: 'repeat(4, minmax(0, 1fr))' } }}>
              <Fact label="Email" value={account.email} />
              <Fact label="Username" value={account.username ?? '—'} />
              <Fact label="Domain" value={account.domain_name} />
              <Fact label="Role" value={account.role} />
            </Box>
            <RowForm onSubmit={handleSubmit}>
              <FullNameField
                name="full_name"
                autoComplete="name"
                value={fullName}
                onChange={setFullName}
                problem={tooLong ? `At most ${MAX_FULL_NAME} characters (${fullName.length} now).` : null}
                sx={{ flexGrow: 1, maxWidth: { sm: 420 } }}
              />
              <BusyButton type="submit" busy={pending} busyLabel="Saving…" disabled={tooLong || unchanged}>
                Save name
              </BusyButton>
            </RowForm>
            <ProblemAlert error={saveError} />
          </Stack>
        )}
      </Loaded>
    </SectionCard>
  );
}
