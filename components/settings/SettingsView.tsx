'use client';
/** The settings page: profile, password, SSH keypair, dotfiles, the bootstrap script and CLI credentials, one card each. */
import Stack from '@mui/material/Stack';
import { PageHeader } from '@/components/ui/PageHeader';
import { useToast } from '@/components/ui/useToast';
import { BootstrapScriptCard } from './BootstrapScriptCard';
import { CliCredentialsCard } from './CliCredentialsCard';
import { DotfilesCard } from './DotfilesCard';
import { PasswordCard } from './PasswordCard';
import { ProfileCard } from './ProfileCard';
import { SshKeypairCard } from './SshKeypairCard';

export function SettingsView() {
  const [toast, notify] = useToast();
  return (
    <>
      <PageHeader title="Settings" description="Your account, and what Berth puts into every session you start." />
      <Stack spacing={3} sx={{ maxWidth: 1100 }}>
        <ProfileCard onSaved={notify} />
        <PasswordCard onSaved={notify} />
        <SshKeypairCard onSaved={notify} />
        <DotfilesCard onSaved={notify} />
        <BootstrapScriptCard onSaved={notify} />
        <CliCredentialsCard />
      </Stack>
      {toast}
    </>
  );
}
