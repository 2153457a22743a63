/** The caller's own account: full name, signout, role in a project. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { verifyPassword } from '../auth/passwords';
import { Problem, forbidden, notFound } from '../http/problem';

export async function updateFullName(app: App, principal: Principal, input: { email: string; full_name: string }) {
  if (input.email !== principal.email) throw forbidden('You can only change your own name.');
  await app.db.updateTable('users').set({ full_name: input.full_name, modified_at: new Date() }).where('uuid', '=', principal.userId).execute();
  return {};
}

/** Deactivates the caller's account and every keypair of it. */
export async function signout(app: App, principal: Principal, input: { email: string; password: string }) {
  const user = await app.db.selectFrom('users').select(['email', 'password']).where('uuid', '=', principal.userId).executeTakeFirstOrThrow();
  if (input.email !== user.email || !(await verifyPassword(input.password, user.password))) {
    throw new Problem('auth-failed', 'User credential mismatch.');
  }
  await app.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ status: 'inactive', modified_at: new Date() }).where('uuid', '=', principal.userId).execute();
    await trx.updateTable('keypairs').set({ is_active: false, modified_at: new Date() }).where('user_id', '=', principal.userId).execute();
  });
  app.keypairs.invalidate();
  return {};
}

export async function roleIn(app: App, principal: Principal, groupId: string | undefined) {
  let groupRole: string | null = null;
  if (groupId) {
    const member = await app.db
      .selectFrom('association_groups_users')
      .select('group_id')
      .where('group_id', '=', groupId)
      .where('user_id', '=', principal.userId)
      .executeTakeFirst();
    if (!member) throw notFound('No such project.', 'You are not a member of this project.');
    groupRole = 'user';
  }
  return {
    global_role: principal.role === 'superadmin' ? 'superadmin' : 'user',
    domain_role: principal.isAdmin || principal.role === 'superadmin' || principal.role === 'admin' ? 'admin' : 'user',
    group_role: groupRole,
  };
}
