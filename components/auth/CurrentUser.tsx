'use client';
/** The signed-in user as the server's session check saw it (email and role only; the keys never leave the server). */
import { createContext, useContext, type ReactNode } from 'react';

export interface CurrentUser {
  email: string | null;
  /** The name the user signed in with (email or username). */
  name: string | null;
  role: string;
}

const CurrentUserContext = createContext<CurrentUser | null>(null);

export function CurrentUserProvider({ user, children }: { user: CurrentUser; children: ReactNode }) {
  return <CurrentUserContext.Provider value={user}>{children}</CurrentUserContext.Provider>;
}

export function useCurrentUser(): CurrentUser {
  const user = useContext(CurrentUserContext);
  if (!user) throw new Error('useCurrentUser must be used inside the dashboard frame.');
  return user;
}
