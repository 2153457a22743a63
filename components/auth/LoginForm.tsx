'use client';
/**
 * The sign-in form. next-auth posts the credentials to the dashboard's server, which asks the manager; a refusal
 * comes back as the manager's problem (title and detail), shown above the form.
 */
import { useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';

interface LoginProblem {
  title: string;
  detail?: string;
}

/** Decodes next-auth's `error` string: the JSON problem app/lib/auth.ts wrote, or one of next-auth's own codes. */
export function decodeLoginError(error: string): LoginProblem {
  try {
    const parsed = JSON.parse(error) as { title?: unknown; detail?: unknown };
    if (parsed && typeof parsed === 'object') {
      return {
        title: typeof parsed.title === 'string' ? parsed.title : 'Sign-in failed',
        detail: typeof parsed.detail === 'string' ? parsed.detail : undefined,
      };
    }
  } catch {
    // one of next-auth's codes
  }
  if (error === 'CredentialsSignin') return { title: 'Sign-in failed', detail: 'Check your email and password.' };
  if (error === 'SessionRequired') return { title: 'Please sign in', detail: 'Your session has ended.' };
  return { title: 'Sign-in failed', detail: error };
}

export function LoginForm({ defaultDomain, initialError }: { defaultDomain: string; initialError?: string }) {
  const router = useRouter();
  const [domain, setDomain] = useState(defaultDomain);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<LoginProblem | null>(initialError ? decodeLoginError(initialError) : null);
  const [pending, setPending] = useState(false);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setProblem(null);
    try {
      const result = await signIn('credentials', { redirect: false, domain, username, password });
      if (result?.ok && !result.error) {
        router.replace('/');
        router.refresh();
        return;
      }
      setProblem(decodeLoginError(result?.error ?? 'CredentialsSignin'));
    } catch {
      setProblem({ title: 'Sign-in failed', detail: 'The dashboard could not be reached. Check your connection and try again.' });
    }
    setPending(false);
  }

  return (
    <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', p: 2 }}>
      <Card variant="outlined" sx={{ width: '100%', maxWidth: 400 }}>
        <CardContent sx={{ p: 4 }}>
          <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
            Berth
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 3 }}>
            Sign in to your cluster
          </Typography>
          <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate>
            {problem && (
              <Alert severity="error" data-testid="login-error">
                <AlertTitle>{problem.title}</AlertTitle>
                {problem.detail}
              </Alert>
            )}
            <TextField
              label="Email or username"
              name="username"
              autoComplete="username"
              autoFocus
              required
              value={username}
              onChange={(e) => setUsername(e.target.value)}
            />
            <TextField
              label="Password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <TextField
              label="Domain"
              name="domain"
              size="small"
              value={domain}
              onChange={(e) => setDomain(e.target.value)}
            />
            <Button type="submit" variant="contained" size="large" disabled={pending || !username || !password}>
              {pending ? 'Signing in…' : 'Sign in'}
            </Button>
          </Stack>
        </CardContent>
      </Card>
    </Box>
  );
}
