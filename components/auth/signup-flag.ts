/**
 * Server-side only: whether visitors may create their own accounts (BERTH_ALLOW_SIGNUP, read the way the
 * manager's settings read it). Read at request time by the login and signup pages and the signup route; only
 * the resulting yes/no reaches a page. A new account signs in with its password, so signup is off in the
 * dashboard when its password form is (BERTH_PASSWORD_LOGIN=false, single sign-on only).
 */
import { readPasswordLogin } from '@/server/config/env';

export function signupEnabled(): boolean {
  return ['1', 'true', 'yes', 'on'].includes((process.env.BERTH_ALLOW_SIGNUP ?? '').toLowerCase()) && readPasswordLogin();
}
