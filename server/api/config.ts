/** §Access control and configuration (CONTRACT §12): the raw configuration store, slots, registries, ACL. */
import { z } from 'zod';
import { route } from '../http/route';
import { bool } from '../http/params';
import { readConfig, writeConfig, deleteConfig, MAX_KEY_LENGTH } from '../config/raw';
import { resourceSlots, resourceSlotDetails } from '../config/resource-slots';
import { dockerRegistries } from '../config/docker-registries';
import { hostPermissionList } from '../config/acl';

const noNul = (s: string) => !s.includes('\0');
const key = () => z.string().min(1).max(MAX_KEY_LENGTH).refine(noNul, 'must not contain NUL characters');
const keyAndPrefix = z.object({ key: key(), prefix: bool() });

export const configRoutes = [
  route({
    method: 'GET', path: '/acl', privilege: 'user', status: 'RUNNING',
    summary: 'The storage-host permissions the caller holds',
    handler: ({ app, principal }) => hostPermissionList(app, principal),
  }),
  route({
    method: 'GET', path: '/config/resource-slots', privilege: 'user', status: null,
    summary: 'The slots active in the cluster and their unit (count or bytes)',
    handler: ({ app }) => resourceSlots(app),
  }),
  route({
    method: 'GET', path: '/config/resource-slots/details', privilege: 'none', status: null,
    input: z.object({ sgroup: z.string().max(256).refine(noNul, 'must not contain NUL characters').optional() }),
    summary: 'How each active slot is displayed, optionally for one scaling group',
    handler: ({ app, input }) => resourceSlotDetails(app, input.sgroup || undefined),
  }),
  route({
    method: 'GET', path: '/config/docker-registries', privilege: 'superadmin', status: null,
    summary: 'Registered container registries: name → URL',
    handler: ({ app }) => dockerRegistries(app),
  }),
  route({
    method: 'POST', path: '/config/get', privilege: 'superadmin', status: null, input: keyAndPrefix,
    summary: 'Raw read from the configuration store (prefix: plain string-prefix match, nested)',
    handler: ({ app, input }) => readConfig(app, input.key, input.prefix),
  }),
  route({
    method: 'POST', path: '/config/set', privilege: 'superadmin', status: null, freeText: ['value'],
    input: z.object({
      key: key(),
      value: z.union([z.string().refine(noNul, 'must not contain NUL characters'), z.record(z.string(), z.unknown())]),
    }),
    summary: 'Raw write to the configuration store (an object is stored flattened under the key)',
    handler: ({ app, input }) => writeConfig(app, input.key, input.value),
  }),
  route({
    method: 'POST', path: '/config/delete', privilege: 'superadmin', status: null, input: keyAndPrefix,
    summary: 'Raw delete from the configuration store (prefix: plain string-prefix match)',
    handler: ({ app, input }) => deleteConfig(app, input.key, input.prefix),
  }),
];
