/**
 * `POST /resource/check-presets` (CONTRACT §12): the caller's limits, usage and remainder, what the scaling
 * groups have left, and which presets could start now. The keypair's remainder is the tightest of the keypair,
 * project and domain remainders; a preset is allocatable when that remainder and one ALIVE, schedulable agent
 * can both hold it.
 */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { badRequest } from '../http/problem';
import { projectForCaller } from './project';
import { allowedScalingGroups } from './scaling-groups';
import { loadPresets, type PresetView } from './presets';
import { quotaUsage } from './usage';
import { activeSlots, addAmounts, fits, formatSlots, remainder, toAmounts, type Amounts } from './slots';

/** Operators opt in to showing project figures to users, as in Backend.AI's configuration. */
export const PROJECT_VISIBILITY_KEY = 'config/api/resources/group_resource_visibility';

export interface CheckPresetsInput {
  group: string;
  scaling_group?: string;
}

export async function checkPresets(app: App, principal: Principal, input: CheckPresetsInput) {
  const project = await projectForCaller(app, principal, input.group);
  const allowed = await allowedScalingGroups(app, principal, project);
  if (input.scaling_group !== undefined && !allowed.includes(input.scaling_group)) {
    throw badRequest('Unknown scaling group.', { scaling_group: 'no such scaling group' });
  }
  const selected = input.scaling_group !== undefined ? [input.scaling_group] : allowed;
  const slots = Object.keys(await activeSlots(app));

  const [policy, domain, usage, showProject] = await Promise.all([
    app.db.selectFrom('keypair_resource_policies').select('total_resource_slots').where('name', '=', principal.keypairPolicy).executeTakeFirst(),
    app.db.selectFrom('domains').select('total_resource_slots').where('name', '=', project.domainName).executeTakeFirst(),
    quotaUsage(app, { accessKey: principal.accessKey, projectId: project.id, domainName: project.domainName }),
    app.config.get(PROJECT_VISIBILITY_KEY),
  ]);

  const keypairLimits = toAmounts(policy?.total_resource_slots);
  const projectLimits = toAmounts(project.totalResourceSlots);
  const domainLimits = toAmounts(domain?.total_resource_slots);
  const keypairLeft = remainder(keypairLimits, usage.keypair, slots);
  const projectLeft = remainder(projectLimits, usage.project, slots);
  const domainLeft = remainder(domainLimits, usage.domain, slots);
  const remaining: Amounts = {};
  for (const name of slots) remaining[name] = Math.min(keypairLeft[name], projectLeft[name], domainLeft[name]);

  const agents = await schedulableAgents(app, selected);
  const perGroup: Record<string, { using: Record<string, string>; remaining: Record<string, string> }> = {};
  const groupsLeft: Amounts = {};
  for (const name of selected) {
    const using: Amounts = {};
    const left: Amounts = {};
    for (const agent of agents.filter((a) => a.scalingGroup === name)) {
      addAmounts(using, agent.occupied);
      addAmounts(left, agent.free);
    }
    addAmounts(groupsLeft, left);
    perGroup[name] = { using: formatSlots(using, slots), remaining: formatSlots(left, slots) };
  }

  const presets = await loadPresets(app, slots, input.scaling_group !== undefined ? [input.scaling_group] : []);
  const visible = ['true', '1', 'yes', 'on'].includes((showProject ?? '').trim().toLowerCase());
  const projectFigure = (amounts: Amounts, missing: number) => (visible ? formatSlots(amounts, slots, missing) : formatSlots({}, slots, NaN));
  return {
    keypair_limits: formatSlots(keypairLimits, slots, Infinity),
    keypair_using: formatSlots(usage.keypair, slots),
    keypair_remaining: formatSlots(remaining, slots),
    group_limits: projectFigure(projectLimits, Infinity),
    group_using: projectFigure(usage.project, 0),
    group_remaining: projectFigure(projectLeft, 0),
    scaling_group_remaining: formatSlots(groupsLeft, slots),
    scaling_groups: perGroup,
    presets: presets.map(({ view, amounts }): PresetView & { allocatable: boolean } => ({
      ...view,
      allocatable: fits(amounts, remaining) && agents.some((agent) => fits(amounts, agent.free)),
    })),
  };
}

interface AgentCapacity {
  scalingGroup: string;
  occupied: Amounts;
  free: Amounts;
}

/** ALIVE agents that take new sessions, with what each holds and has left. */
async function schedulableAgents(app: App, scalingGroups: string[]): Promise<AgentCapacity[]> {
  if (!scalingGroups.length) return [];
  const rows = await app.db
    .selectFrom('agents')
    .select(['scaling_group', 'available_slots', 'occupied_slots'])
    .where('status', '=', 'ALIVE')
    .where('schedulable', '=', true)
    .where('scaling_group', 'in', scalingGroups)
    .execute();
  return rows.map((row) => {
    const available = toAmounts(row.available_slots);
    const occupied = toAmounts(row.occupied_slots);
    return { scalingGroup: row.scaling_group, occupied, free: remainder(available, occupied, Object.keys(available)) };
  });
}
