'use client';
/** Small pieces the sessions pages share: the status chip, a problem alert, a loading flag that does not flash. */
import { useEffect, useState, type ReactNode } from 'react';
import Alert, { type AlertProps } from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Chip from '@mui/material/Chip';
import type { ManagerError } from '@/components/api/problem';
import { statusLabel, statusTone } from './model';

export function StatusChip({ status, size = 'small' }: { status: string; size?: 'small' | 'medium' }) {
  const tone = statusTone(status);
  return (
    <Chip
      label={statusLabel(status)}
      size={size}
      color={tone}
      variant={tone === 'default' ? 'outlined' : 'filled'}
      data-testid="session-status"
      data-status={status}
    />
  );
}

/** A manager refusal for a person: its title and detail (never a stack trace). */
export function ProblemAlert({ error, action, testId, severity = 'error' }: { error: ManagerError | Error; action?: ReactNode; testId?: string; severity?: AlertProps['severity'] }) {
  const problem = 'problem' in error ? (error as ManagerError).problem : { title: undefined, detail: error.message };
  return (
    <Alert severity={severity} action={action} data-testid={testId}>
      <AlertTitle>{problem.title ?? 'Request failed'}</AlertTitle>
      {problem.detail}
    </Alert>
  );
}

/** Quick loads never show a loading state: the one delay every area uses. */
export { useDelayed } from '@/components/ui/feedback';

/** The current time, ticking every `everyMs`, for relative times; null before the first client render. */
export function useNow(everyMs = 30_000): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- null on the server and while hydrating, the clock once mounted
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
