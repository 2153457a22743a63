'use client';
/**
 * The sign-in form. next-auth posts the credentials to the dashboard's server, which asks the manager; a refusal
 * comes back as the manager's problem (title and detail), shown above the form. A password that expired through
 * age (`password-expired`) switches to the form that sets a new one, then signs in with it.
 *
 * With single sign-on configured, "Sign in with <name>" sits above the password form (which the operator may turn
 * off): it starts next-auth's redirect to the provider, and a refusal comes back to this page as `?error=`.
 */
import { useState, type FormEvent } from 'react';
import NextLink from 'next/link';
import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { CurrentPasswordField, FormProblemAlert, SignInNameField } from './AccountFields';
import { AuthCard } from './AuthCard';
import { PasswordExpiredForm } from './PasswordExpiredForm';
import { BusyButton } from '@/components/ui/BusyButton';

export interface LoginProblem {
  title: string;
  detail?: string;
  /** The manager's problem type, e.g. https://errors.berth.dev/password-expired. */
  type?: string;
}

/** What the server offers on this login page (app/lib/oidc.ts loginChoices). */
export interface LoginChoices {
  passwordLogin: boolean;
  sso: { name: string } | null;
}

const PASSWORD_ONLY: LoginChoices = { passwordLogin: true, sso: null };

/** next-auth's codes for a single sign-on that went wrong before the manager was asked. */
function ssoProblem(error: string, choices: LoginChoices): LoginProblem | null {
  const provider = choices.sso?.name ?? 'The single sign-on provider';
  const fallback = choices.passwordLogin ? ' You can still sign in with your password.' : '';
  if (error === 'OAuthSignin') {
    return { title: 'Single sign-on is unavailable', detail: `${provider} could not be reached. Try again shortly.${fallback}` };
  }
  if (error === 'OAuthCallback' || error === 'Callback') {
    return { title: 'Single sign-on failed', detail: `The answer from ${provider} did not pass the security checks, or the sign-in was cancelled. Try again.${fallback}` };
  }
  if (error === 'AccessDenied') return { title: 'Access denied', detail: 'This account may not sign in to Berth.' };
  if (error === 'Configuration') return { title: 'Sign-in is misconfigured', detail: "The dashboard's sign-in settings are wrong: see the server's log." };
  return null;
}

/** Decodes next-auth's `error` string: the JSON problem app/lib/auth.ts wrote, or one of next-auth's own codes. */
export function decodeLoginError(error: string, choices: LoginChoices = PASSWORD_ONLY): LoginProblem {
  try {
    const parsed = JSON.parse(error) as { title?: unknown; detail?: unknown; type?: unknown };
    if (parsed && typeof parsed === 'object') {
      return {
        title: typeof parsed.title === 'string' ? parsed.title : 'Sign-in failed',
        detail: typeof parsed.detail === 'string' ? parsed.detail : undefined,
        type: typeof parsed.type === 'string' ? parsed.type : undefined,
      };
    }
  } catch {
    // one of next-auth's codes
  }
  const sso = ssoProblem(error, choices);
  if (sso) return sso;
  if (error === 'CredentialsSignin') return { title: 'Sign-in failed', detail: 'Check your email and password.' };
  if (error === 'SessionRequired') return { title: 'Please sign in', detail: 'Your session has ended.' };
  return { title: 'Sign-in failed', detail: error };
}

export function isPasswordExpired(problem: LoginProblem | null): boolean {
  return Boolean(problem?.type?.endsWith('/password-expired'));
}

/** Starts the redirect to the provider; it comes back to the summary (or to this page with a problem). */
function SsoButton({ name, primary }: { name: string; primary: boolean }) {
  const [leaving, setLeaving] = useState(false);
  return (
    <Button
      variant={primary ? 'contained' : 'outlined'}
      size="large"
      disabled={leaving}
      onClick={() => {
        setLeaving(true);
        // next-auth navigates to the provider; only a failure to reach the dashboard itself comes back here.
        signIn('oidc', { callbackUrl: '/' }).catch(() => setLeaving(false));
      }}
    >
      {leaving ? `Going to ${name}…` : `Sign in with ${name}`}
    </Button>
  );
}

export function LoginForm({
  defaultDomain,
  initialError,
  signupEnabled = false,
  choices = PASSWORD_ONLY,
}: {
  defaultDomain: string;
  initialError?: string;
  signupEnabled?: boolean;
  choices?: LoginChoices;
}) {
  const router = useRouter();
  const [domain, setDomain] = useState(defaultDomain);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<LoginProblem | null>(initialError ? decodeLoginError(initialError, choices) : null);
  const [pending, setPending] = useState(false);
  /** Set when the manager refused the login because the password is too old; the password typed is kept for the change. */
  const [expired, setExpired] = useState<{ problem: LoginProblem; currentPassword: string } | null>(null);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setProblem(null);
    try {
      // An explicit callbackUrl: next-auth reads the result's `error` from it, and this page's own URL may still
      // carry the ?error= of a single sign-on that failed before.
      const result = await signIn('credentials', { redirect: false, callbackUrl: '/', domain, username, password });
      if (result?.ok && !result.error) {
        router.replace('/');
        router.refresh();
        return;
      }
      const refusal = decodeLoginError(result?.error ?? 'CredentialsSignin');
      if (isPasswordExpired(refusal)) {
        setExpired({ problem: refusal, currentPassword: password });
        setPassword('');
      } else {
        setProblem(refusal);
      }
    } catch {
      setProblem({ title: 'Sign-in failed', detail: 'The dashboard could not be reached. Check your connection and try again.' });
    }
    setPending(false);
  }

  if (expired || isPasswordExpired(problem)) {
    return (
      <AuthCard subtitle="Your password has expired">
        <PasswordExpiredForm
          domain={domain}
          username={username}
          currentPassword={expired?.currentPassword ?? ''}
          detail={(expired?.problem ?? problem)?.detail}
          onCancel={() => {
            setExpired(null);
            setProblem(null);
          }}
        />
      </AuthCard>
    );
  }

  return (
    <AuthCard subtitle="Sign in to your cluster">
      <Stack spacing={2}>
        <FormProblemAlert problem={problem} testId="login-error" />
        {choices.sso && <SsoButton name={choices.sso.name} primary={!choices.passwordLogin} />}
        {choices.sso && choices.passwordLogin && <Divider sx={{ typography: 'body2', color: 'text.secondary' }}>or</Divider>}
        {choices.passwordLogin && (
          <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate>
            <SignInNameField autoFocus={!choices.sso} value={username} onChange={setUsername} />
            <CurrentPasswordField label="Password" name="password" value={password} onChange={setPassword} />
            <TextField label="Domain" name="domain" size="small" value={domain} onChange={(e) => setDomain(e.target.value)} />
            <BusyButton type="submit" size="large" busy={pending} busyLabel="Signing in…" disabled={!username || !password}>
              Sign in
            </BusyButton>
          </Stack>
        )}
        {signupEnabled && choices.passwordLogin && (
          <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center' }}>
            New here?{' '}
            <Link component={NextLink} href="/signup" underline="hover">
              Create an account
            </Link>
          </Typography>
        )}
      </Stack>
    </AuthCard>
  );
}
