'use client';
/**
 * One call a form sends at a time: `pending` while it runs (for the button's "Saving…"), and the error it ended
 * with, kept until the next attempt, for a ProblemAlert. The call itself says what success does.
 */
import { useState } from 'react';

export function useSending() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function send(call: () => Promise<unknown>): Promise<void> {
    setPending(true);
    setError(null);
    try {
      await call();
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  }

  return { pending, error, setError, send };
}
