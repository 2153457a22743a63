/** An admin issues a keypair to a user they manage; the user's first keypair becomes their main one. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireAdmin } from '../auth/privilege';
import { generateAccessKey, generateSecretKey } from '../auth/keys';
import { nonNegative } from '../admin/values';
import { canonicalUuid } from '../util/uuid';
import { checkManaged, loadUserBy } from '../accounts/managed-users';
import { loadKeypair, type KeypairProps } from './values';
import { checkPolicyExists } from '../resource-policies/values';

export async function createKeypair(app: App, principal: Principal, input: { user_id: string; props: KeypairProps }) {
  requireAdmin(principal);
  const uuid = input.user_id.includes('@') ? null : canonicalUuid(input.user_id);
  const user = checkManaged(principal, uuid ? await loadUserBy(app, 'uuid', uuid) : await loadUserBy(app, 'email', input.user_id));
  const props = input.props ?? {};
  const policy = props.resource_policy ?? 'default';
  await checkPolicyExists(app, 'keypair_resource_policies', policy);
  nonNegative(props.rate_limit, 'rate_limit');
  const accessKey = generateAccessKey();
  await app.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('keypairs')
      .values({
        access_key: accessKey,
        secret_key: generateSecretKey(),
        user_id: user.uuid,
        is_active: props.is_active ?? true,
        is_admin: props.is_admin ?? false,
        resource_policy: policy,
        rate_limit: props.rate_limit === undefined ? 10000 : props.rate_limit,
      })
      .execute();
    if (!user.main_access_key) await trx.updateTable('users').set({ main_access_key: accessKey }).where('uuid', '=', user.uuid).execute();
  });
  app.keypairs.invalidate(accessKey);
  const created = await loadKeypair(app, accessKey);
  return { keypair: created && { ...created, revealed: true } };
}
