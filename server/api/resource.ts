/** §Resources and usage: presets, preset allocatability and scaling groups (CONTRACT §12). */
import { z } from 'zod';
import { route } from '../http/route';
import { list, uuid } from '../http/params';
import { Problem } from '../http/problem';
import { listPresets } from '../resources/presets';
import { checkPresets } from '../resources/check-presets';
import { listScalingGroups } from '../resources/scaling-groups';
import { recalculateUsage } from '../resources/recalculate';
import { watcherFor } from '../resources/watcher';
import { monthUsage, periodUsage } from '../resources/usage-report/project-usage';
import { monthlyStats } from '../resources/usage-report/monthly-stats';

const name = () => z.string().min(1).max(256).refine((s) => !s.includes('\0'), 'must not contain NUL characters');

export const resourceRoutes = [
  route({
    method: 'GET', path: '/resource/presets', privilege: 'user', status: null,
    summary: 'Every resource preset, with slots as decimal strings',
    handler: ({ app }) => listPresets(app),
  }),
  route({
    method: 'POST', path: '/resource/check-presets', privilege: 'user', status: 'FROZEN',
    // The contract gives `group` the default "default" and `scaling_group` none.
    input: z.object({ scaling_group: name().nullish(), group: name().default('default') }),
    summary: "The caller's limits, usage and remainder, and which presets are allocatable now",
    handler: ({ app, principal, input }) => checkPresets(app, principal, { group: input.group, scaling_group: input.scaling_group ?? undefined }),
  }),
  route({
    method: 'GET', path: '/scaling-groups', privilege: 'user', status: 'FROZEN',
    input: z.object({ group: name() }),
    summary: 'The scaling groups the caller may use in a project (name or uuid)',
    handler: ({ app, principal, input }) => listScalingGroups(app, principal, input.group),
  }),
  route({
    method: 'POST', path: '/resource/recalculate-usage', privilege: 'superadmin', status: 'FROZEN',
    summary: "Rebuild agents' occupied slots from the kernels that hold resources",
    handler: ({ app }) => recalculateUsage(app),
  }),
  route({
    method: 'GET', path: '/resource/usage/month', privilege: 'superadmin', status: 'FROZEN',
    input: z.object({ month: z.string().max(16), group_ids: list(uuid()).optional() }),
    summary: "Usage of the month's containers per project, in the configured time zone (system/timezone)",
    handler: ({ app, input }) => monthUsage(app, input),
  }),
  route({
    method: 'GET', path: '/resource/usage/period', privilege: 'superadmin', status: 'FROZEN',
    input: z.object({ start_date: z.string().max(16), end_date: z.string().max(16), group_id: uuid().optional() }),
    summary: 'Usage of the containers of a period (at most 100 days, end date included) per project',
    handler: ({ app, input }) => periodUsage(app, input),
  }),
  route({
    method: 'GET', path: '/resource/stats/user/month', privilege: 'user', status: 'FROZEN',
    summary: "The caller's ended sessions over the last 30 days, in 2,880 bins of 15 minutes",
    handler: ({ app, principal }) => monthlyStats(app, principal.userId),
  }),
  route({
    method: 'GET', path: '/resource/stats/admin/month', privilege: 'superadmin', status: 'FROZEN',
    summary: 'Every ended session over the last 30 days, in 2,880 bins of 15 minutes',
    handler: ({ app }) => monthlyStats(app),
  }),
  route({
    method: 'GET', path: '/resource/watcher', privilege: 'superadmin', status: 'FROZEN', input: z.object({ agent_id: name() }),
    summary: "The agent watcher's view of an agent service",
    handler: async ({ app, input }) => (await watcherFor(app, input.agent_id)).status(),
  }),
  ...(['start', 'stop', 'restart'] as const).map((action) =>
    route({
      method: 'POST', path: `/resource/watcher/agent/${action}`, privilege: 'superadmin', status: 'FROZEN', input: z.object({ agent_id: name() }),
      summary: `${action[0].toUpperCase()}${action.slice(1)} an agent service through its watcher`,
      handler: async ({ app, input }) => {
        const service = await watcherFor(app, input.agent_id);
        await service[action]();
        return service.status();
      },
    }),
  ),
  route({
    method: 'GET', path: '/scaling-groups/:scaling_group/wsproxy-version', privilege: 'user', status: 'FROZEN',
    input: z.object({ scaling_group: name(), group: name().optional() }),
    summary: "The app proxy's protocol version for a scaling group",
    handler: async ({ app, input }) => {
      const group = await app.db.selectFrom('scaling_groups').select('name').where('name', '=', input.scaling_group).executeTakeFirst();
      if (!group) throw new Problem('object-not-found', `No such scaling group: ${input.scaling_group}`, undefined, { title: 'No such scaling group.' });
      return { wsproxy_version: 'v2' };
    },
  }),
];
