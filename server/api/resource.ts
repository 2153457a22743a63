/** §Resources and usage: presets, preset allocatability and scaling groups (CONTRACT §12). */
import { z } from 'zod';
import { route } from '../http/route';
import { listPresets } from '../resources/presets';
import { checkPresets } from '../resources/check-presets';
import { listScalingGroups } from '../resources/scaling-groups';

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
];
