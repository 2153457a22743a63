'use client';
/**
 * The states every data view shares: an error written for a person (the manager's problem title and detail, never
 * a stack trace), an empty state that says what to do next, and a loading placeholder that appears only when
 * loading takes long enough to notice, so fast answers do not flash a skeleton.
 */
import { useEffect, useState, type ReactNode } from 'react';
import Alert, { type AlertProps } from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ManagerError } from '@/components/api/problem';

export interface PersonProblem {
  title: string;
  detail?: string;
}

/** What to tell a person about an error: the manager's problem, or a plain sentence for anything else. */
export function problemOf(error: unknown): PersonProblem {
  if (error instanceof ManagerError) {
    const title = error.problem.title ?? 'The request failed';
    const detail = error.problem.detail && error.problem.detail !== title ? error.problem.detail : undefined;
    return { title, detail };
  }
  if (error instanceof TypeError) {
    return { title: 'The dashboard could not be reached', detail: 'Check your connection and try again.' };
  }
  return { title: 'Something went wrong', detail: 'Try again; if it keeps happening, tell your administrator.' };
}

export function ProblemAlert({
  error,
  severity = 'error',
  action,
  onClose,
  sx,
  testId,
}: {
  error: unknown;
  severity?: AlertProps['severity'];
  action?: ReactNode;
  onClose?: () => void;
  sx?: AlertProps['sx'];
  testId?: string;
}) {
  if (!error) return null;
  const { title, detail } = problemOf(error);
  return (
    <Alert severity={severity} action={action} onClose={onClose} sx={sx} data-testid={testId ?? 'problem'} role="alert">
      <AlertTitle>{title}</AlertTitle>
      {detail}
    </Alert>
  );
}

export function EmptyState({ title, children, action, icon }: { title: string; children?: ReactNode; action?: ReactNode; icon?: ReactNode }) {
  return (
    <Stack spacing={1} sx={{ alignItems: 'center', textAlign: 'center', py: 5, px: 2, color: 'text.secondary' }} data-testid="empty-state">
      {icon}
      <Typography variant="subtitle1" component="p" sx={{ color: 'text.primary', fontWeight: 600 }}>
        {title}
      </Typography>
      {children && (
        <Typography variant="body2" component="div" sx={{ maxWidth: 480 }}>
          {children}
        </Typography>
      )}
      {action && <Box sx={{ pt: 1 }}>{action}</Box>}
    </Stack>
  );
}

/** True once `active` has stayed true for `delayMs`. */
export function useDelayed(active: boolean, delayMs = 300): boolean {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (!active) {
      // eslint-disable-next-line react-hooks/set-state-in-effect -- hides at once when the activity ends; the timer shows it
      setShown(false);
      return;
    }
    const timer = setTimeout(() => setShown(true), delayMs);
    return () => clearTimeout(timer);
  }, [active, delayMs]);
  return active && shown;
}

/** Placeholder rows while data loads; nothing for the first 300 ms (the space is kept, so nothing jumps). */
export function Loading({ rows = 3, height = 28, label = 'Loading' }: { rows?: number; height?: number; label?: string }) {
  const shown = useDelayed(true);
  return (
    <Box role="progressbar" aria-label={label} aria-busy="true" sx={{ minHeight: rows * (height + 8) }}>
      {shown && Array.from({ length: rows }, (_, i) => <Skeleton key={i} height={height} sx={{ my: 0.5 }} width={i === rows - 1 ? '60%' : '100%'} />)}
    </Box>
  );
}

/**
 * What a card shows of something it loads: the problem when loading failed, a placeholder until `data` arrives, then
 * what `children` makes of it (given the data, no longer undefined).
 */
export function Loaded<T>({ error, data, rows, children }: { error: unknown; data: T | null | undefined; rows?: number; children: (data: T) => ReactNode }) {
  if (error) return <ProblemAlert error={error} />;
  if (data === undefined || data === null) return <Loading rows={rows} />;
  return <>{children(data)}</>;
}

/** Text for screen readers only (e.g. the header of an actions column). */
export function VisuallyHidden({ children }: { children: ReactNode }) {
  return (
    <Box component="span" sx={{ border: 0, clip: 'rect(0 0 0 0)', height: '1px', m: '-1px', overflow: 'hidden', p: 0, position: 'absolute', whiteSpace: 'nowrap', width: '1px' }}>
      {children}
    </Box>
  );
}
