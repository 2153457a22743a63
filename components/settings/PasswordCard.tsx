'use client';
/** Password change: the current password, the new one twice; checked here first, then by the manager. */
import { useState, type FormEvent } from 'react';
import Stack from '@mui/material/Stack';
import { NewPasswordFields, PasswordField } from '@/components/auth/AccountFields';
import { MIN_PASSWORD_LENGTH, passwordLengthProblem } from '@/components/auth/accountRules';
import { SectionCard } from '@/components/ui/SectionCard';
import { updatePassword } from './useSettings';
import { useSending } from '@/components/ui/useSending';
import { SubmitActions } from '@/components/ui/FormActions';


export interface PasswordProblems {
  current?: string;
  next?: string;
  repeat?: string;
}

/** The messages shown under the fields; empty when the form may be sent. */
export function passwordProblems(current: string, next: string, repeat: string): PasswordProblems {
  const problems: PasswordProblems = {};
  if (!current) problems.current = 'Enter your current password.';
  const tooShort = passwordLengthProblem(next);
  if (tooShort) problems.next = tooShort;
  else if (next === current) problems.next = 'Choose a password different from the current one.';
  if (repeat !== next) problems.repeat = 'The two new passwords do not match.';
  return problems;
}

export function PasswordCard({ onSaved }: { onSaved: (message: string) => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const { pending, error, send } = useSending();

  const problems = passwordProblems(current, next, repeat);
  const valid = Object.keys(problems).length === 0;

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitted(true);
    if (!valid) return;
    await send(async () => {
      await updatePassword({ old_password: current, new_password: next, new_password2: repeat });
      setCurrent('');
      setNext('');
      setRepeat('');
      setSubmitted(false);
      onSaved('Your password is changed. Use it the next time you sign in.');
    });
  }

  return (
    <SectionCard id="password" title="Password" description={`At least ${MIN_PASSWORD_LENGTH} characters. Signing in elsewhere keeps working until those sessions end.`}>
      <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate sx={{ maxWidth: 420 }}>
        <PasswordField
          label="Current password"
          name="current-password"
          autoComplete="current-password"
          value={current}
          onChange={setCurrent}
          problem={problems.current}
          submitted={submitted}
        />
        <NewPasswordFields next={next} repeat={repeat} onNext={setNext} onRepeat={setRepeat} problems={problems} submitted={submitted} />
        <SubmitActions error={error} label="Change password" busy={pending} busyLabel="Changing…" />
      </Stack>
    </SectionCard>
  );
}
