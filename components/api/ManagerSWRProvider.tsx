'use client';
/**
 * SWR defaults for the signed-in pages. A 401 from the relay means the session is gone (expired cookie, revoked
 * keys): the dashboard session is closed and the user is sent to the login page.
 */
import type { ReactNode } from 'react';
import { useRouter } from 'next/navigation';
import { signOut } from 'next-auth/react';
import { SWRConfig } from 'swr';
import { ManagerError } from './problem';

export function ManagerSWRProvider({ children }: { children: ReactNode }) {
  const router = useRouter();
  return (
    <SWRConfig
      value={{
        onError(error: unknown) {
          if (error instanceof ManagerError && error.status === 401) {
            void signOut({ redirect: false }).then(() => router.replace('/login'));
          }
        },
        onErrorRetry(error: unknown, _key, _config, revalidate, { retryCount }) {
          if (error instanceof ManagerError && error.status < 500) return;
          if (retryCount >= 5) return;
          setTimeout(() => void revalidate({ retryCount }), Math.min(30_000, 1_000 * 2 ** retryCount));
        },
      }}
    >
      {children}
    </SWRConfig>
  );
}
