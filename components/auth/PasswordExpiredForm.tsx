'use client';
/**
 * Shown when the manager refused a login with `password-expired`: the user sets a new password (the expired one
 * proves who they are, through /auth/update-password-no-auth), and is then signed in with the new one.
 */
import { useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { CurrentPasswordField, formProblem, FormProblemAlert, NewPasswordFields, SignInNameField, type FormProblem } from './AccountFields';
import { changeExpiredPassword } from './accountForms';
import { newPasswordProblems } from './accountRules';
import { BusyButton } from '@/components/ui/BusyButton';

/** "It expired on 3 May 2025, 10:00." from the manager's "Password expired on <ISO>"; the detail as it is otherwise. */
function expiredOn(detail: string | undefined): string {
  if (!detail) return '';
  const match = /expired on (\S+)/.exec(detail);
  const date = match ? new Date(match[1]) : null;
  if (!date || Number.isNaN(date.getTime())) return `${detail.replace(/\.$/, '')}. `;
  return `It expired on ${date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}. `;
}

export function PasswordExpiredForm({
  domain,
  username: initialUsername,
  currentPassword: initialCurrent,
  detail,
  onCancel,
}: {
  domain: string;
  username: string;
  /** The expired password as typed at sign-in; asked for again when unknown. */
  currentPassword: string;
  detail?: string;
  onCancel: () => void;
}) {
  const router = useRouter();
  const [username, setUsername] = useState(initialUsername);
  const [current, setCurrent] = useState(initialCurrent);
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const askIdentity = !initialUsername || !initialCurrent;

  const problems = newPasswordProblems(next, repeat, current);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitted(true);
    if (problems.next || problems.repeat || !username || !current) return;
    setPending(true);
    setProblem(null);
    try {
      await changeExpiredPassword({ domain, username, current_password: current, new_password: next });
    } catch (err) {
      setProblem(formProblem(err, 'The password was not changed'));
      setPending(false);
      return;
    }
    const result = await signIn('credentials', { redirect: false, callbackUrl: '/', domain, username, password: next }).catch(() => null);
    if (result?.ok && !result.error) {
      router.replace('/');
      router.refresh();
      return;
    }
    setProblem({ title: 'Your password is changed', detail: 'Signing in with it failed; go back and sign in with the new password.', severity: 'info' });
    setPending(false);
  }

  return (
    <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate data-testid="password-expired">
      <Alert severity="warning">
        <AlertTitle>Choose a new password</AlertTitle>
        {expiredOn(detail)}Your administrator requires passwords to be changed regularly.
      </Alert>
      <FormProblemAlert problem={problem} testId="password-expired-error" />
      {askIdentity && (
        <>
          <SignInNameField value={username} onChange={setUsername} />
          <CurrentPasswordField label="Expired password" name="current-password" value={current} onChange={setCurrent} />
        </>
      )}
      <NewPasswordFields autoFocus required next={next} repeat={repeat} onNext={setNext} onRepeat={setRepeat} problems={problems} submitted={submitted} />
      <BusyButton type="submit" size="large" busy={pending} busyLabel="Changing…">
        Change password and sign in
      </BusyButton>
      <Button onClick={onCancel} disabled={pending}>
        Back to sign in
      </Button>
    </Stack>
  );
}
