'use client';
/**
 * How long a session has before the idle culler ends it (GET /session/{name}'s idleChecks, issue 14): the idle
 * timeout (reset by use: code, terminal input, app traffic) and the maximum lifetime, counting down each second
 * from the manager's last answer.
 */
import { useEffect, useMemo, useState } from 'react';
import Typography from '@mui/material/Typography';

export interface IdleChecks {
  idle_timeout?: { threshold: number; remaining: number; last_activity: string };
  session_lifetime?: { threshold: number; remaining: number };
}

export function formatSeconds(total: number): string {
  const s = Math.max(0, Math.floor(total));
  const parts: string[] = [];
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3_600);
  const minutes = Math.floor((s % 3_600) / 60);
  if (days) parts.push(`${days}d`);
  if (hours) parts.push(`${hours}h`);
  if (minutes && !days) parts.push(`${minutes}m`);
  if (!days && !hours) parts.push(`${s % 60}s`);
  return parts.join(' ');
}

/** Seconds left of each check, counting down from when the answer arrived. */
function useCountdown(checks: IdleChecks | undefined): { idle?: number; lifetime?: number } {
  // eslint-disable-next-line react-hooks/purity, react-hooks/exhaustive-deps -- the countdown starts when a new answer arrives
  const arrived = useMemo(() => Date.now(), [checks]);
  const [now, setNow] = useState(arrived);
  const active = Boolean(checks?.idle_timeout || checks?.session_lifetime);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [active]);
  const elapsed = Math.max(0, (now - arrived) / 1000);
  return {
    idle: checks?.idle_timeout ? checks.idle_timeout.remaining - elapsed : undefined,
    lifetime: checks?.session_lifetime ? checks.session_lifetime.remaining - elapsed : undefined,
  };
}

export function IdleTimeLeft({ checks }: { checks: IdleChecks | undefined }) {
  const left = useCountdown(checks);
  return left.idle === undefined ? null : (
    <Typography variant="body2" component="span" data-testid="idle-time-left">
      {formatSeconds(left.idle)} left unless used (ends after {formatSeconds(checks!.idle_timeout!.threshold)} idle)
    </Typography>
  );
}

export function LifetimeLeft({ checks }: { checks: IdleChecks | undefined }) {
  const left = useCountdown(checks);
  return left.lifetime === undefined ? null : (
    <Typography variant="body2" component="span" data-testid="lifetime-left">
      {formatSeconds(left.lifetime)} left (at most {formatSeconds(checks!.session_lifetime!.threshold)})
    </Typography>
  );
}
