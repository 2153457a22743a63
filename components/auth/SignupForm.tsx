'use client';
/** Creating one's own account (when the operator allows it), then signing in with it. */
import { useState, type FormEvent } from 'react';
import NextLink from 'next/link';
import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { CheckedTextField } from '@/components/admin/ui/CheckedTextField';
import { ManagerError } from '@/components/api/problem';
import { AuthCard } from './AuthCard';
import { signUp } from './accountForms';
import { emailProblem, lengthProblem, MIN_PASSWORD_LENGTH, newPasswordProblems } from './accountRules';

export function SignupForm({ defaultDomain }: { defaultDomain: string }) {
  const router = useRouter();
  const [email, setEmail] = useState('');
  const [fullName, setFullName] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [domain, setDomain] = useState(defaultDomain);
  const [submitted, setSubmitted] = useState(false);
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<{ title: string; detail?: string } | null>(null);

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
      setProblem(
        err instanceof ManagerError
          ? { title: err.problem.title ?? 'The account was not created', detail: err.problem.detail }
          : { title: 'The account was not created', detail: 'The dashboard could not be reached. Check your connection and try again.' },
      );
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
        {problem && (
          <Alert severity="error" data-testid="signup-error">
            <AlertTitle>{problem.title}</AlertTitle>
            {problem.detail}
          </Alert>
        )}
        <CheckedTextField
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          autoFocus
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          problem={problems.email}
          submitted={submitted}
        />
        <CheckedTextField
          label="Full name"
          name="name"
          autoComplete="name"
          value={fullName}
          onChange={(e) => setFullName(e.target.value)}
          problem={problems.fullName}
          submitted={submitted}
          helperText="Optional"
        />
        <CheckedTextField
          label="Choose a password"
          name="new-password"
          type="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          problem={problems.next}
          submitted={submitted}
          helperText={`At least ${MIN_PASSWORD_LENGTH} characters.`}
        />
        <CheckedTextField
          label="Repeat the password"
          name="new-password-repeat"
          type="password"
          autoComplete="new-password"
          required
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
          problem={problems.repeat}
          submitted={submitted}
        />
        <TextField label="Domain" name="domain" size="small" value={domain} onChange={(e) => setDomain(e.target.value)} />
        <Button type="submit" variant="contained" size="large" disabled={pending}>
          {pending ? 'Creating your account…' : 'Create account'}
        </Button>
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
