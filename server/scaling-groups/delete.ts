/** Deleting a scaling group (superadmins); refused while agents still belong to it. */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { requireSuperadmin } from '../auth/privilege';
import { Problem } from '../http/problem';
import { existingScalingGroup } from './values';

export async function deleteScalingGroup(app: App, principal: Principal, input: { name: string }): Promise<void> {
  requireSuperadmin(principal);
  await existingScalingGroup(app, input.name);
  const agent = await app.db.selectFrom('agents').select('id').where('scaling_group', '=', input.name).executeTakeFirst();
  if (agent) throw new Problem('generic-bad-request', `Scaling group ${input.name} still has agents.`);
  await app.db.deleteFrom('scaling_groups').where('name', '=', input.name).execute();
}
