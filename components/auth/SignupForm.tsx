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
import { ManagerError } from '@/components/api/problem';
import { AuthCard } from './AuthCard';
import { newPasswordProblems, signUp } from './accountForms';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

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

  const emailProblem = !EMAIL_PATTERN.test(email.trim()) ? 'Enter your email address.' : email.trim().length > 64 ? 'At most 64 characters.' : undefined;
  const problems = { email: emailProblem, ...newPasswordProblems(password, repeat), fullName: fullName.length > 64 ? 'At most 64 characters.' : undefined };
  const shown = (field: keyof typeof problems, value: string) => ((submitted || value) && problems[field]) || undefined;

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
        <TextField
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          autoFocus
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={Boolean(shown('email', email))}
          helperText={shown('email', email) || ' '}
        />
        <TextField
          label="Full name"
          name="name"
          autoComplete="name"
          value={fullName}
          onChange={(e) => setFullName(e.target.value)}
          error={Boolean(shown('fullName', fullName))}
          helperText={shown('fullName', fullName) || 'Optional'}
        />
        <TextField
          label="Choose a password"
          name="new-password"
          type="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={Boolean(shown('next', password))}
          helperText={shown('next', password) || 'At least 8 characters.'}
        />
        <TextField
          label="Repeat the password"
          name="new-password-repeat"
          type="password"
          autoComplete="new-password"
          required
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
          error={Boolean(shown('repeat', repeat))}
          helperText={shown('repeat', repeat) || ' '}
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
