'use client';
/**
 * What a dialog is open for — a row to edit, or `true` for a "create" dialog — and the two ways it closes: `close`
 * (cancelled) and `done(after)`, which closes it and then runs `after` with the dialog's result (a toast, a
 * refresh, a navigation). One state per dialog instead of a setter and a hand-written onSaved in every view.
 */
import { useCallback, useMemo, useState } from 'react';

export interface DialogTarget<T> {
  /** What the dialog is open for; null while it is closed. */
  target: T | null;
  isOpen: boolean;
  open: (target: T) => void;
  close: () => void;
  done: <A extends unknown[]>(after: (...result: A) => void) => (...result: A) => void;
}

export function useDialogTarget<T = true>(): DialogTarget<T> {
  const [target, setTarget] = useState<T | null>(null);
  const close = useCallback(() => setTarget(null), []);
  return useMemo(
    () => ({
      target,
      isOpen: target !== null,
      open: (next: T) => setTarget(() => next),
      close,
      done: <A extends unknown[]>(after: (...result: A) => void) => (...result: A) => {
        setTarget(null);
        after(...result);
      },
    }),
    [target, close],
  );
}
