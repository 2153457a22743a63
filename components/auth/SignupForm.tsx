'use client';
/** Creating one's own account (when the operator allows it), then signing in with it. */
import { useState, type FormEvent } from 'react';
import NextLink from 'next/link';
import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { AuthCard } from './AuthCard';
import { EmailField, formProblem, FormProblemAlert, FullNameField, NewPasswordFields, type FormProblem } from './AccountFields';
import { signUp } from './accountForms';
import { emailProblem, lengthProblem, MIN_PASSWORD_LENGTH, newPasswordProblems } from './accountRules';
import { BusyButton } from '@/components/ui/BusyButton';

export function SignupForm({ defaultDomain }: { defaultDomain: string }) {
  const router = useRouter();
  const [email, setEmail] = useState('');
  const [fullName, setFullName] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [domain, setDomain] = useState(defaultDomain);
  const [submitted, setSubmitted] = useState(false);
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<FormProblem | null>(null);

  const problems = { email: emailProblem(email, 'Enter your email address.'), ...newPasswordProblems(password, repeat), fullName: lengthProblem(fullName) };

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitted(true);
    if (Object.values(problems).some(Boolean)) return;
    setPending(true);
    setProblem(null);
    try {
      await signUp({ domain: domain.trim() || defaultDomain, email: email.trim(), password, full_name: fullName.trim() || undefined });
    } catch (err) {
      setProblem(formProblem(err, 'The account was not created'));
      setPending(false);
      return;
    }
    const result = await signIn('credentials', { redirect: false, domain: domain.trim() || defaultDomain, username: email.trim(), password }).catch(() => null);
    if (result?.ok && !result.error) {
      router.replace('/');
      router.refresh();
      return;
    }
    router.replace('/login');
  }

  return (
    <AuthCard subtitle="Create your account">
      <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate>
        <FormProblemAlert problem={problem} testId="signup-error" />
        <EmailField autoComplete="email" autoFocus value={email} onChange={setEmail} problem={problems.email} submitted={submitted} />
        <FullNameField name="name" autoComplete="name" value={fullName} onChange={setFullName} problem={problems.fullName} submitted={submitted} helperText="Optional" />
        <NewPasswordFields
          labels={['Choose a password', 'Repeat the password']}
          required
          next={password}
          repeat={repeat}
          onNext={setPassword}
          onRepeat={setRepeat}
          problems={problems}
          submitted={submitted}
          helperText={`At least ${MIN_PASSWORD_LENGTH} characters.`}
        />
        <TextField label="Domain" name="domain" size="small" value={domain} onChange={(e) => setDomain(e.target.value)} />
        <BusyButton type="submit" size="large" busy={pending} busyLabel="Creating your account…">
          Create account
        </BusyButton>
        <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center' }}>
          Already have an account?{' '}
          <Link component={NextLink} href="/login" underline="hover">
            Sign in
          </Link>
        </Typography>
      </Stack>
    </AuthCard>
  );
}
