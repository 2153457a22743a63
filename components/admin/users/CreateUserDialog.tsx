'use client';
/**
 * A new account, created through GraphQL `create_user`: the user can sign in right away with the email (or
 * username) and the password given here. Superadmins pick the domain; domain admins create users of their own.
 */
import { useState } from 'react';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { useAccount } from '@/components/settings/useSettings';
import { emailProblem, lengthProblem, passwordLengthProblem } from '@/components/auth/accountRules';
import { EmailField, FullNameField, PasswordField } from '@/components/auth/AccountFields';
import { CheckedTextField } from '@/components/ui/CheckedTextField';
import { ProblemAlert } from '@/components/ui/feedback';
import { FormDialog } from '@/components/ui/FormDialog';
import { NameSelect } from '@/components/ui/NameSelect';
import { createUser, ROLE_LABELS, USER_ROLES, useUserFormOptions } from './useUsers';

export function rolesFor(callerRole: string): string[] {
  return USER_ROLES.filter((role) => role !== 'superadmin' || callerRole === 'superadmin');
}

export function CreateUserDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (email: string) => void }) {
  const me = useCurrentUser();
  const superadmin = me.role === 'superadmin';
  const options = useUserFormOptions(superadmin);
  const account = useAccount();
  const [email, setEmail] = useState('');
  const [fullName, setFullName] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState('user');
  const [domain, setDomain] = useState('default');
  const [policy, setPolicy] = useState('default');
  const [submitted, setSubmitted] = useState(false);

  function reset() {
    setEmail('');
    setFullName('');
    setUsername('');
    setPassword('');
    setRole('user');
    setDomain('default');
    setPolicy('default');
    setSubmitted(false);
  }

  const problems = {
    email: emailProblem(email, 'Enter an email address such as ada@example.com.'),
    username: lengthProblem(username),
    password: passwordLengthProblem(password),
    fullName: lengthProblem(fullName),
  };
  const valid = !Object.values(problems).some(Boolean);

  async function create() {
    setSubmitted(true);
    if (!valid) return;
    await createUser({
      email: email.trim(),
      password,
      role,
      full_name: fullName.trim() || undefined,
      username: username.trim() || undefined,
      domain_name: superadmin ? domain : undefined,
      resource_policy: policy,
    });
    onCreated(email.trim());
  }

  const domains = options.data?.domains?.filter((d) => d.is_active).map((d) => d.name) ?? ['default'];
  const policies = options.data?.user_resource_policies?.map((p) => p.name) ?? ['default'];

  return (
    <FormDialog open={open} title="New user" submitLabel="Create user" maxWidth="sm" onOpen={reset} onSubmit={create} onClose={onClose}>
      <EmailField
        autoComplete="off"
        autoFocus
        value={email}
        onChange={setEmail}
        problem={problems.email}
        submitted={submitted}
        helperText="The user signs in with this address."
      />
      <FullNameField name="full_name" autoComplete="off" value={fullName} onChange={setFullName} problem={problems.fullName} submitted={submitted} />
      <CheckedTextField
        label="Username"
        name="username"
        autoComplete="off"
        value={username}
        onChange={(e) => setUsername(e.target.value)}
        problem={problems.username}
        submitted={submitted}
        helperText="Optional; the email is used when left empty."
      />
      <PasswordField
        label="Initial password"
        required
        value={password}
        onChange={setPassword}
        problem={problems.password}
        submitted={submitted}
        helperText="Give it to the user; they can change it in Settings."
      />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <TextField select label="Role" name="role" value={role} onChange={(e) => setRole(e.target.value)} sx={{ flex: 1 }}>
          {rolesFor(me.role).map((r) => (
            <MenuItem key={r} value={r}>
              {ROLE_LABELS[r] ?? r}
            </MenuItem>
          ))}
        </TextField>
        {superadmin ? (
          <NameSelect label="Domain" name="domain" options={domains} value={domain} onChange={setDomain} sx={{ flex: 1 }} />
        ) : (
          <TextField label="Domain" value={account.data?.user?.domain_name ?? ''} disabled sx={{ flex: 1 }} />
        )}
        <NameSelect label="Resource policy" name="resource_policy" options={policies} value={policy} onChange={setPolicy} sx={{ flex: 1 }} />
      </Stack>
      <ProblemAlert error={options.error} severity="warning" />
    </FormDialog>
  );
}
