/** `modify_agent` (superadmins): take an agent in or out of scheduling, or move it to another scaling group. */
import type { Updateable } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { noSuch, requireSuperadmin } from '../auth/privilege';
import type { AgentTable } from '../db/schema';
import { badRequest as invalid } from '../http/problem';
import { given } from '../admin/values';

export async function modifyAgent(app: App, principal: Principal, input: { id: string; props: { schedulable?: boolean | null; scaling_group?: string | null } }) {
  requireSuperadmin(principal);
  const agent = await app.db.selectFrom('agents').select('id').where('id', '=', input.id).executeTakeFirst();
  if (!agent) throw noSuch('agent');
  const props = given(input.props);
  const set: Updateable<AgentTable> = {};
  if (props.schedulable !== undefined && props.schedulable !== null) set.schedulable = props.schedulable;
  if (props.scaling_group) {
    const sg = await app.db.selectFrom('scaling_groups').select('name').where('name', '=', props.scaling_group).executeTakeFirst();
    if (!sg) throw invalid(`No such scaling group: ${props.scaling_group}`);
    set.scaling_group = props.scaling_group;
  }
  if (Object.keys(set).length) await app.db.updateTable('agents').set(set).where('id', '=', input.id).execute();
  return { agent: await app.db.selectFrom('agents').selectAll().where('id', '=', input.id).executeTakeFirst() };
}
