'use client';
import { useSyncExternalStore } from 'react';

const never = () => () => undefined;

/**
 * False on the server and while the page hydrates, true from the render after: for what the server's HTML leaves
 * out on purpose, with no mismatch when the browser takes the page over.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(never, () => true, () => false);
}
