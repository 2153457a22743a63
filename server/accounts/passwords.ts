/** Password changes: signed (old + new twice) and, for expired passwords only, unsigned (CONTRACT §2.5). */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { hashPassword, verifyPassword } from '../auth/passwords';
import { Problem } from '../http/problem';
import { findUserForLogin } from './login';
import { maxPasswordAgeSeconds } from './password-expiry';

async function storePassword(app: App, userId: string, password: string): Promise<Date> {
  const now = new Date();
  await app.db
    .updateTable('users')
    .set({ password: await hashPassword(password), password_changed_at: now, need_password_change: false, modified_at: now })
    .where('uuid', '=', userId)
    .execute();
  return now;
}

export async function updatePassword(app: App, principal: Principal, input: { old_password: string; new_password: string; new_password2: string }) {
  const user = await app.db.selectFrom('users').select('password').where('uuid', '=', principal.userId).executeTakeFirstOrThrow();
  if (!(await verifyPassword(input.old_password, user.password))) throw new Problem('auth-failed', 'Old password mismatch.');
  if (input.new_password !== input.new_password2) throw new Problem('invalid-api-params', 'The new passwords do not match.');
  await storePassword(app, principal.userId, input.new_password);
  return {};
}

export async function updatePasswordNoAuth(app: App, input: { domain: string; username: string; current_password: string; new_password: string }) {
  if ((await maxPasswordAgeSeconds(app)) === null) throw new Problem('generic-bad-request', 'Unsupported function.');
  const user = await findUserForLogin(app, input.domain, input.username);
  if (!user || user.status !== 'active' || !(await verifyPassword(input.current_password, user.password))) {
    throw new Problem('auth-failed', 'User credential mismatch.');
  }
  if (input.current_password === input.new_password) throw new Problem('invalid-api-params', 'The new password must differ from the current one.');
  const changedAt = await storePassword(app, user.uuid, input.new_password);
  return { password_changed_at: changedAt.toISOString() };
}
