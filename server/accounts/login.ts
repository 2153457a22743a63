/** Login by domain + username (or email) + password → the user's keypair (CONTRACT §2.5). */
import type { App } from '../app';
import type { Db } from '../db';
import { verifyPassword } from '../auth/passwords';
import { Problem } from '../http/problem';
import { passwordExpiry } from './password-expiry';

export interface LoginInput {
  domain: string;
  username: string;
  password: string;
}

export async function findUserForLogin(app: App, domain: string, username: string) {
  const candidates = await app.db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb('email', '=', username), eb('username', '=', username)]))
    .execute();
  // The domain picks among same-named users; it defaults to the user's own when it matches no other.
  return candidates.find((u) => u.domain_name === domain) ?? (candidates.length === 1 ? candidates[0] : undefined);
}

export async function login(app: App, input: LoginInput) {
  const user = await findUserForLogin(app, input.domain, input.username);
  const mismatch = () => new Problem('auth-failed', 'User credential mismatch.');
  if (!user || !(await verifyPassword(input.password, user.password))) throw mismatch();
  if (user.status === 'before-verification') throw new Problem('auth-failed', 'This account needs email verification.');
  if (user.status !== 'active') throw mismatch();
  const expiry = await passwordExpiry(app, user.password_changed_at);
  if (expiry?.expired) {
    throw new Problem('password-expired', `Password expired on ${expiry.expiresAt.toISOString()}`, {
      password_changed_at: user.password_changed_at.toISOString(),
      max_password_age_seconds: expiry.maxAgeSeconds,
    });
  }
  const keypair = await activeKeypair(app.db, user);
  return { access_key: keypair.access_key, secret_key: keypair.secret_key, role: user.role, status: user.status };
}

/** The keypair a login hands out: the user's main one when it is active, else their oldest active one. */
export async function activeKeypair(db: Db, user: { uuid: string; main_access_key: string | null }) {
  const keypair = await db
    .selectFrom('keypairs')
    .select(['access_key', 'secret_key'])
    .where('user_id', '=', user.uuid)
    .where('is_active', '=', true)
    .orderBy((eb) => eb.case().when('access_key', '=', user.main_access_key ?? '').then(0).else(1).end())
    .orderBy('created_at')
    .executeTakeFirst();
  if (!keypair) throw new Problem('auth-failed', 'No active keypair for this user.');
  return keypair;
}
