'use client';
/** One user for admins: their details (GraphQL `modify_user`), deactivation, a password reset, and their keypairs. */
import { useEffect, useState, type FormEvent } from 'react';
import NextLink from 'next/link';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ArrowBackIcon } from '@/components/frame/icons';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { useAccount } from '@/components/settings/useSettings';
import { formatDateTime } from '../format';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { EmptyState, Loading, ProblemAlert } from '@/components/ui/feedback';
import { NameSelect } from '@/components/ui/NameSelect';
import { PageHeader } from '@/components/ui/PageHeader';
import { SectionCard } from '@/components/ui/SectionCard';
import { useToast } from '@/components/ui/useToast';
import { passwordLengthProblem } from '@/components/auth/accountRules';
import { rolesFor } from './CreateUserDialog';
import { KeypairsPanel } from './KeypairsPanel';
import { RoleChip, StatusChip } from './UsersView';
import { modifyUser, ROLE_LABELS, useAdminUser, useUserFormOptions, type AdminUser } from './useUsers';
import { useSending } from '@/components/ui/useSending';
import { CardColumn } from '@/components/ui/CardsPage';
import { BusyButton } from '@/components/ui/BusyButton';
import { RowForm } from '@/components/ui/RowForm';
import { SubmitActions } from '@/components/ui/FormActions';
import { FullNameField, PasswordField } from '@/components/auth/AccountFields';

function ProfileForm({ user, onSaved, readOnly }: { user: AdminUser; onSaved: (message: string) => void; readOnly: boolean }) {
  const me = useCurrentUser();
  const options = useUserFormOptions(false);
  const [fullName, setFullName] = useState(user.full_name ?? '');
  const [username, setUsername] = useState(user.username ?? '');
  const [description, setDescription] = useState(user.description ?? '');
  const [role, setRole] = useState(user.role);
  const [policy, setPolicy] = useState(user.resource_policy);
  const { pending, error, send } = useSending();

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the form restarts from each newly loaded user
    setFullName(user.full_name ?? '');
    setUsername(user.username ?? '');
    setDescription(user.description ?? '');
    setRole(user.role);
    setPolicy(user.resource_policy);
  }, [user]);

  const problems = {
    fullName: fullName.length > 64 ? 'At most 64 characters.' : null,
    username: !username.trim() ? 'A username is required.' : username.length > 64 ? 'At most 64 characters.' : null,
  };
  const changes: Record<string, string> = {};
  if (fullName !== (user.full_name ?? '')) changes.full_name = fullName.trim();
  if (username.trim() !== (user.username ?? '')) changes.username = username.trim();
  if (description !== (user.description ?? '')) changes.description = description;
  if (role !== user.role) changes.role = role;
  if (policy !== user.resource_policy) changes.resource_policy = policy;
  const dirty = Object.keys(changes).length > 0;
  const roles = rolesFor(me.role).includes(user.role) ? rolesFor(me.role) : [user.role, ...rolesFor(me.role)];
  const policies = options.data?.user_resource_policies?.map((p) => p.name) ?? [user.resource_policy];

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (problems.fullName || problems.username || !dirty) return;
    await send(async () => {
      await modifyUser(user.email, changes);
      onSaved('The user is saved.');
    });
  }

  return (
    <SectionCard id="details" title="Details">
      <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate>
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <FullNameField disabled={readOnly} value={fullName} onChange={setFullName} problem={problems.fullName} />
          <TextField label="Username" disabled={readOnly} value={username} onChange={(e) => setUsername(e.target.value)} error={Boolean(problems.username)} helperText={problems.username || ' '} />
          <TextField select label="Role" disabled={readOnly} value={role} onChange={(e) => setRole(e.target.value)} helperText="Admins manage their domain; superadmins everything.">
            {roles.map((r) => (
              <MenuItem key={r} value={r} disabled={!rolesFor(me.role).includes(r)}>
                {ROLE_LABELS[r] ?? r}
              </MenuItem>
            ))}
          </TextField>
          <NameSelect label="Resource policy" disabled={readOnly} options={policies} value={policy} onChange={setPolicy} helperText=" " />
        </Box>
        <TextField label="Description" multiline minRows={2} value={description} onChange={(e) => setDescription(e.target.value)} disabled={readOnly} />
        {!readOnly && (
          <SubmitActions error={error} label="Save changes" busy={pending} busyLabel="Saving…" disabled={!dirty} />
        )}
      </Stack>
    </SectionCard>
  );
}

function PasswordResetForm({ user, onSaved }: { user: AdminUser; onSaved: (message: string) => void }) {
  const [password, setPassword] = useState('');
  const { pending, error, send } = useSending();
  const problem = password ? (passwordLengthProblem(password) ?? null) : null;

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!password || problem) return;
    await send(async () => {
      await modifyUser(user.email, { password });
      setPassword('');
      onSaved(`The password of ${user.email} is reset.`);
    });
  }

  return (
    <SectionCard id="reset-password" title="Reset password" description="Sets a new password for the user; give it to them, they can change it in Settings.">
      <RowForm onSubmit={handleSubmit}>
        <PasswordField label="New password" value={password} onChange={setPassword} problem={problem} sx={{ flexGrow: 1, maxWidth: { sm: 360 } }} />
        <BusyButton type="submit" variant="outlined" busy={pending} busyLabel="Resetting…" disabled={!password || Boolean(problem)}>
          Reset password
        </BusyButton>
      </RowForm>
      <ProblemAlert error={error} sx={{ mt: 1 }} />
    </SectionCard>
  );
}

export function UserDetailView({ email }: { email: string }) {
  const { data, error } = useAdminUser(email);
  const account = useAccount();
  const [toast, notify] = useToast();
  const [toggling, setToggling] = useState(false);
  const user = data?.user;
  const isSelf = account.data?.user?.email === email;
  const me = useCurrentUser();

  const back = (
    <Button component={NextLink} href="/admin/users" startIcon={<ArrowBackIcon />} sx={{ mb: 2 }}>
      All users
    </Button>
  );

  if (error) {
    return (
      <>
        {back}
        <ProblemAlert error={error} />
      </>
    );
  }
  if (!data) {
    return (
      <>
        {back}
        <Loading rows={6} />
      </>
    );
  }
  if (!user) {
    return (
      <>
        {back}
        <EmptyState title="No such user">No user {email} exists within your reach. They may have been purged, or belong to another domain.</EmptyState>
      </>
    );
  }

  const active = user.status === 'active';
  // The manager lets only superadmins change a superadmin; others see the account read-only.
  const manageable = me.role === 'superadmin' || user.role !== 'superadmin';
  return (
    <>
      {back}
      <PageHeader
        title={user.full_name || user.email}
        description={
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }} component="span">
            <span>{user.email}</span>
            <RoleChip role={user.role} />
            <StatusChip status={user.status} />
            <span>
              · {user.domain_name} · created {formatDateTime(user.created_at)}
            </span>
          </Stack>
        }
        actions={
          manageable && (
            <Button variant={active ? 'outlined' : 'contained'} color={active ? 'error' : 'primary'} onClick={() => setToggling(true)} disabled={isSelf && active}>
              {active ? 'Deactivate user' : 'Activate user'}
            </Button>
          )
        }
      />
      {!manageable && (
        <Alert severity="info" sx={{ mb: 3 }}>
          Only superadmins can change a superadmin&apos;s account. You can see it, but not edit it.
        </Alert>
      )}
      {isSelf && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          This is your own account; you cannot deactivate it here.
        </Typography>
      )}
      <CardColumn>
        <ProfileForm user={user} onSaved={notify} readOnly={!manageable} />
        <KeypairsPanel email={user.email} onSaved={notify} readOnly={!manageable} />
        {manageable && <PasswordResetForm user={user} onSaved={notify} />}
      </CardColumn>
      <ConfirmDialog
        open={toggling}
        title={active ? `Deactivate ${user.email}?` : `Activate ${user.email}?`}
        confirmLabel={active ? 'Deactivate' : 'Activate'}
        danger={active}
        onConfirm={async () => {
          await modifyUser(user.email, { status: active ? 'inactive' : 'active' });
          notify(active ? `${user.email} can no longer sign in.` : `${user.email} can sign in again.`);
        }}
        onClose={() => setToggling(false)}
      >
        <Typography variant="body2">
          {active
            ? 'The user can no longer sign in, and requests with their keys are refused. Their sessions and folders are kept; you can activate them again.'
            : 'The user can sign in again with their password and active keypairs.'}
        </Typography>
      </ConfirmDialog>
      {toast}
    </>
  );
}
