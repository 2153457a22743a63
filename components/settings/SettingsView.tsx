'use client';
/** The settings page: profile, password, SSH keypair, dotfiles, the bootstrap script and CLI credentials, one card each. */
import { CardsPage } from '@/components/ui/CardsPage';
import { BootstrapScriptCard } from './BootstrapScriptCard';
import { CliCredentialsCard } from './CliCredentialsCard';
import { DotfilesCard } from './DotfilesCard';
import { PasswordCard } from './PasswordCard';
import { ProfileCard } from './ProfileCard';
import { SshKeypairCard } from './SshKeypairCard';

export function SettingsView() {
  return (
    <CardsPage title="Settings" description="Your account, and what Berth puts into every session you start.">
      {(notify) => (
        <>
          <ProfileCard onSaved={notify} />
          <PasswordCard onSaved={notify} />
          <SshKeypairCard onSaved={notify} />
          <DotfilesCard onSaved={notify} />
          <BootstrapScriptCard onSaved={notify} />
          <CliCredentialsCard />
        </>
      )}
    </CardsPage>
  );
}
