/** An admin changes a keypair within their reach: active, admin, resource policy, rate limit. */
import type { Updateable } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import type { KeypairTable } from '../db/schema';
import { given, nonNegative } from '../admin/values';
import { loadKeypair, managedKeypair, type KeypairProps } from './values';
import { checkPolicyExists } from '../resource-policies/values';

export async function modifyKeypair(app: App, principal: Principal, input: { access_key: string; props: KeypairProps }) {
  const row = await managedKeypair(app, principal, input.access_key);
  const props = given(input.props);
  const set: Updateable<KeypairTable> = { modified_at: new Date() };
  if (props.is_active !== undefined && props.is_active !== null) set.is_active = props.is_active;
  if (props.is_admin !== undefined && props.is_admin !== null) set.is_admin = props.is_admin;
  if (props.resource_policy) {
    await checkPolicyExists(app, 'keypair_resource_policies', props.resource_policy);
    set.resource_policy = props.resource_policy;
  }
  if (props.rate_limit !== undefined) {
    nonNegative(props.rate_limit, 'rate_limit');
    set.rate_limit = props.rate_limit;
  }
  await app.db.updateTable('keypairs').set(set).where('access_key', '=', row.access_key).execute();
  app.keypairs.invalidate(row.access_key);
  return { keypair: await loadKeypair(app, row.access_key) };
}
