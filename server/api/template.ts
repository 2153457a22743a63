/** §Templates: session and cluster templates, and the two ways of starting sessions from them (§Sessions). */
import { z } from 'zod';
import { route, type RouteDef } from '../http/route';
import { bool, fold } from '../http/params';
import { createTemplates, deleteTemplate, findTemplate, listTemplates, updateTemplate } from '../templates/store';
import { renderDetail } from '../templates/render';
import { clusterRequestSchema, fromTemplateSchema } from '../templates/request';
import { SESSION_TEXT } from '../sessions/inputs';
import { createCluster, createFromTemplate } from '../templates/instantiate';
import type { TemplateKind } from '../templates/validate';

const SCOPE_ALIASES = { group: ['groupName', 'group_name'], domain: ['domainName', 'domain_name'] };
const text = () => z.string({ error: (issue) => (issue.input === undefined ? 'required' : 'must be a string') });

/** The base spec marks `group*` and `domain*` required when storing, and when replacing a session template. */
const scope = { group: text().min(1, 'must not be empty'), domain: text().min(1, 'must not be empty') };
const optionalScope = { group: z.string().min(1).nullish(), domain: z.string().min(1).nullish() };
const storeSchema = z.preprocess(
  (v) => fold(SCOPE_ALIASES, v),
  z.object({ payload: text().min(1, 'must not be empty'), ...scope, owner_access_key: z.string().nullish() }),
);
const byId = z.object({ template_id: z.string().min(1), owner_access_key: z.string().nullish() });
const listSchema = z.preprocess((v) => fold({ group_id: ['groupId'] }, v), z.object({ all: bool().default(false), group_id: z.string().nullish() }));

function templateRoutesOf(segment: 'session' | 'cluster', kind: TemplateKind, defaultFormat: 'json' | 'yaml'): RouteDef[] {
  const base = `/template/${segment}`;
  return [
    route({
      method: 'POST', path: base, privilege: 'user', status: 'FROZEN', input: storeSchema, freeText: ['payload'],
      summary: `Store ${segment} templates from a JSON or YAML payload`, response: '[{"id": hex32, "user": hex32}]',
      handler: ({ app, principal, input }) => createTemplates(app, principal, kind, input),
    }),
    route({
      method: 'GET', path: base, privilege: 'user', status: 'FROZEN', input: listSchema,
      summary: `The ${segment} templates the caller may see (all=true: every one, superadmins only)`,
      handler: ({ app, principal, input }) => listTemplates(app, principal, kind, input),
    }),
    route({
      method: 'GET', path: `${base}/:template_id`, privilege: 'user', status: 'FROZEN',
      input: byId.extend({ format: z.enum(['json', 'yaml']).nullish() }),
      summary: `One ${segment} template, as JSON or text/yaml (default ${defaultFormat})`,
      handler: async ({ app, principal, input }) =>
        renderDetail(await findTemplate(app, principal, kind, input.template_id, input.owner_access_key), input.format ?? defaultFormat),
    }),
    route({
      method: 'PUT', path: `${base}/:template_id`, privilege: 'user', status: 'FROZEN', freeText: ['payload'],
      input: z.preprocess((v) => fold(SCOPE_ALIASES, v), byId.extend({ payload: text().min(1, 'must not be empty'), ...(segment === 'session' ? scope : optionalScope) })),
      summary: `Replace a ${segment} template`,
      handler: ({ app, principal, input }) => updateTemplate(app, principal, kind, input.template_id, input),
    }),
    route({
      method: 'DELETE', path: `${base}/:template_id`, privilege: 'user', status: 'FROZEN', input: byId,
      summary: `Delete a ${segment} template`,
      handler: ({ app, principal, input }) => deleteTemplate(app, principal, kind, input.template_id, input.owner_access_key),
    }),
  ];
}

export const templateRoutes: RouteDef[] = [
  ...templateRoutesOf('session', 'task', 'json'),
  ...templateRoutesOf('cluster', 'cluster', 'yaml'),
  route({
    method: 'POST', path: '/session/_/create-from-template', privilege: 'user', status: 'RUNNING', input: fromTemplateSchema, freeText: SESSION_TEXT,
    summary: 'Create a session from a session template; request fields override the template',
    handler: ({ app, principal, input }) => createFromTemplate(app, principal, input),
  }),
  route({
    method: 'POST', path: '/session/_/create-cluster', privilege: 'user', status: 'RUNNING', input: clusterRequestSchema,
    summary: 'Create a multi-kernel session from a cluster template',
    handler: ({ app, principal, input }) => createCluster(app, principal, input),
  }),
];
