'use client';
/**
 * The account fields the sign-up, expired-password, settings and new-user forms share, so that each field has one
 * name, type and autocomplete hint wherever it is asked for; what differs between forms (labels, helper texts,
 * required or not) stays a prop.
 */
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import TextField, { type TextFieldProps } from '@mui/material/TextField';
import { CheckedTextField, type CheckedTextFieldProps } from '@/components/ui/CheckedTextField';
import { ManagerError } from '@/components/api/problem';

type FieldProps = Omit<CheckedTextFieldProps, 'onChange'> & { onChange: (value: string) => void };

export function EmailField({ onChange, ...props }: Omit<FieldProps, 'label' | 'name' | 'type'>) {
  return <CheckedTextField label="Email" name="email" type="email" required {...props} onChange={(e) => onChange(e.target.value)} />;
}

export function FullNameField({ onChange, ...props }: Omit<FieldProps, 'label'>) {
  return <CheckedTextField label="Full name" {...props} onChange={(e) => onChange(e.target.value)} />;
}

/** A password field; a new password unless `autoComplete` says otherwise. */
export function PasswordField({ onChange, ...props }: Omit<FieldProps, 'type'>) {
  return <CheckedTextField type="password" name="new-password" autoComplete="new-password" {...props} onChange={(e) => onChange(e.target.value)} />;
}

type SignInFieldProps = Omit<TextFieldProps, 'onChange' | 'type' | 'label'> & { value: string; onChange: (value: string) => void };

/** Who signs in (sign-in and expired-password forms): an email or a username, as the manager accepts either. */
export function SignInNameField({ onChange, ...props }: SignInFieldProps) {
  return <TextField label="Email or username" name="username" autoComplete="username" required {...props} onChange={(e) => onChange(e.target.value)} />;
}

/** The password a person has today (to sign in, or to prove it is them); `label` says which. */
export function CurrentPasswordField({ onChange, ...props }: SignInFieldProps & { label: string }) {
  return <TextField type="password" autoComplete="current-password" required {...props} onChange={(e) => onChange(e.target.value)} />;
}

/** A new password typed twice; `problems` as newPasswordProblems (accountRules.ts) gives them. */
export function NewPasswordFields({
  next,
  repeat,
  onNext,
  onRepeat,
  problems,
  submitted,
  labels = ['New password', 'Repeat the new password'],
  required,
  autoFocus,
  helperText,
}: {
  next: string;
  repeat: string;
  onNext: (value: string) => void;
  onRepeat: (value: string) => void;
  problems: { next?: string; repeat?: string };
  submitted: boolean;
  labels?: [string, string];
  required?: boolean;
  autoFocus?: boolean;
  /** Under the first field while it has no problem. */
  helperText?: string;
}) {
  return (
    <>
      <PasswordField
        label={labels[0]}
        autoFocus={autoFocus}
        required={required}
        value={next}
        onChange={onNext}
        problem={problems.next}
        submitted={submitted}
        helperText={helperText}
      />
      <PasswordField label={labels[1]} name="new-password-repeat" required={required} value={repeat} onChange={onRepeat} problem={problems.repeat} submitted={submitted} />
    </>
  );
}

export interface FormProblem {
  title: string;
  detail?: string;
  severity?: 'error' | 'info';
}

/** What a signed-out account form says when its call fails: the manager's problem, or that it was not reached. */
export function formProblem(err: unknown, title: string): FormProblem {
  return err instanceof ManagerError
    ? { title: err.problem.title ?? title, detail: err.problem.detail, severity: 'error' }
    : { title, detail: 'The dashboard could not be reached. Check your connection and try again.', severity: 'error' };
}

/** The problem above a signed-out form (sign-in, sign-up, expired password); `testId` is what the e2e tests look for. */
export function FormProblemAlert({ problem, testId }: { problem: FormProblem | null; testId: string }) {
  if (!problem) return null;
  return (
    <Alert severity={problem.severity ?? 'error'} data-testid={testId}>
      <AlertTitle>{problem.title}</AlertTitle>
      {problem.detail}
    </Alert>
  );
}
