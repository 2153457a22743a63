/**
 * Starting sessions from templates. A session template's spec supplies the defaults of a create-session body
 * (image, type, environ, startup command, bootstrap, resources, scaling group, mounts); fields in the request
 * override them; the result goes through the create-session rules and createSession like POST /session.
 * A cluster template becomes one session of sum(replicas) kernels built from its main node's session template.
 */
import { randomBytes } from 'node:crypto';
import type { App } from '../app';
import { actingAs } from '../auth/delegation';
import { isSuperadmin, type Principal } from '../auth/principal';
import { fieldErrors } from '../http/params';
import { Problem, badRequest } from '../http/problem';
import { createSession, type CreateSessionResult } from '../sessions/create';
import { createSessionSchema, toCreateInput } from '../sessions/inputs';
import type { TemplateRow } from './render';
import type { ClusterRequest, FromTemplateRequest } from './request';
import { MAIN_ROLE, clusterTemplateSchema, taskTemplateSchema, type ClusterTemplate, type TaskTemplate } from './schema';
import { findTemplate } from './store';
import { submissionLookups } from '../sessions/lookups';

type Body = Record<string, unknown> & { config?: Record<string, unknown> };

const MERGED_CONFIG_MAPS = new Set(['environ', 'resources', 'resource_opts', 'mount_map', 'mount_options']);

export async function createFromTemplate(app: App, caller: Principal, request: FromTemplateRequest): Promise<CreateSessionResult> {
  let defaults: Body = {};
  let stem = 'session';
  await submissionLookups(app).refresh();
  if (request.template_id) {
    const owner = await actingAs(app, caller, request.owner_access_key);
    const row = await findTemplate(app, caller, 'task', request.template_id, request.owner_access_key, true);
    const template = readTaskTemplate(row);
    defaults = await sessionDefaults(app, owner, row, template);
    stem = template.metadata.name;
  }
  const { template_id: _, ...fields } = request;
  const body = overlay(defaults, fields);
  if (typeof body.name !== 'string' || !body.name) body.name = generatedName(stem);
  return start(app, caller, body);
}

export async function createCluster(app: App, caller: Principal, request: ClusterRequest): Promise<CreateSessionResult> {
  const owner = await actingAs(app, caller, request.owner_access_key);
  await submissionLookups(app).refresh();
  const row = await findTemplate(app, caller, 'cluster', request.template_id, request.owner_access_key, true);
  const cluster = readClusterTemplate(row);
  const nodes = cluster.spec.nodes;
  const members: TemplateRow[] = [];
  for (const [i, node] of nodes.entries()) {
    try {
      members.push(await findTemplate(app, caller, 'task', node.session_template, request.owner_access_key, true));
    } catch (error) {
      if (!(error instanceof Problem && error.slug === 'object-not-found')) throw error;
      throw badRequest(`The cluster template names a session template that does not exist: ${node.session_template}`, { [`spec.nodes.${i}.session_template`]: 'no such session template' });
    }
  }
  const mainRow = members[nodes.findIndex((n) => n.role === MAIN_ROLE)];
  const main = readTaskTemplate(mainRow);
  const defaults = await sessionDefaults(app, owner, mainRow, main, { environ: cluster.spec.environ, mounts: cluster.spec.mounts });
  defaults.cluster_size = nodes.reduce((sum, node) => sum + node.replicas, 0);
  defaults.cluster_mode = cluster.mode;
  const clusterGroup = await templateGroup(app, owner, row.group_id);
  if (clusterGroup) defaults.group = clusterGroup;

  const body = overlay(defaults, {
    name: request.clientSessionToken,
    type: request.type,
    group: request.group,
    domain: request.domain,
    tag: request.tag,
    enqueueOnly: request.enqueueOnly,
    maxWaitSeconds: request.maxWaitSeconds,
    owner_access_key: request.owner_access_key,
    config: request.scaling_group ? { scaling_group: request.scaling_group } : undefined,
  });
  // Kernels take their node's role (CONTRACT §5.1): the main node first, then each node's replicas.
  const ordered = [...nodes.filter((n) => n.role === MAIN_ROLE), ...nodes.filter((n) => n.role !== MAIN_ROLE)];
  return start(app, caller, body, ordered.flatMap((node) => Array.from({ length: node.replicas }, () => node.role)));
}

function readTaskTemplate(row: TemplateRow): TaskTemplate {
  const parsed = taskTemplateSchema.safeParse(row.template);
  if (!parsed.success) throw badRequest('The session template is not valid any more; replace it first.', fieldErrors(parsed.error));
  return parsed.data;
}

function readClusterTemplate(row: TemplateRow): ClusterTemplate {
  const parsed = clusterTemplateSchema.safeParse(row.template);
  if (!parsed.success) throw badRequest('The cluster template is not valid any more; replace it first.', fieldErrors(parsed.error));
  return parsed.data;
}

interface Shared {
  environ?: Record<string, string> | null;
  mounts?: Record<string, string | null> | null;
}

/** The create-session body a session template stands for; `shared` (a cluster's environ and mounts) lies below it. */
async function sessionDefaults(app: App, owner: Principal, row: TemplateRow, template: TaskTemplate, shared: Shared = {}): Promise<Body> {
  const { spec, metadata } = template;
  const { kernel } = spec;
  const environ = { ...(shared.environ ?? {}), ...(kernel.environ ?? {}) };
  const mounts = mountsOf({ ...(shared.mounts ?? {}), ...(spec.mounts ?? {}) });
  const config: Record<string, unknown> = {};
  if (Object.keys(environ).length) config.environ = environ;
  if (spec.resources) config.resources = spec.resources;
  if (spec.scaling_group) config.scaling_group = spec.scaling_group;
  if (spec.agent_list?.length) config.agent_list = spec.agent_list;
  if (mounts.mounts.length) Object.assign(config, mounts);
  const body: Body = { image: kernel.image, type: spec.session_type, config };
  if (kernel.architecture) body.arch = kernel.architecture;
  if (metadata.tag) body.tag = metadata.tag;
  if (kernel.run?.startup_command) body.startupCommand = kernel.run.startup_command;
  if (kernel.run?.bootstrap) body.bootstrap_script = kernel.run.bootstrap;
  const group = await templateGroup(app, owner, row.group_id);
  if (group) body.group = group;
  return body;
}

/** The template's project, when the session owner may start sessions in it (from the submission lookups). */
async function templateGroup(app: App, owner: Principal, groupId: string | null): Promise<string | undefined> {
  if (!groupId) return undefined;
  const lookups = submissionLookups(app);
  const group = await lookups.remember(`template-project\0${owner.domainName}\0${groupId}`, () =>
    app.db.selectFrom('groups').select('id').where('id', '=', groupId).where('domain_name', '=', owner.domainName).where('is_active', '=', true).executeTakeFirst(),
  );
  if (!group) return undefined;
  if (isSuperadmin(owner)) return group.id;
  return (await lookups.member(owner.userId, group.id)) ? group.id : undefined;
}

/** `{folder: path}` as the create-session config's mounts list and mount map. */
function mountsOf(map: Record<string, string | null> | null | undefined): { mounts: string[]; mount_map: Record<string, string> } {
  const entries = Object.entries(map ?? {});
  return { mounts: entries.map(([folder]) => folder), mount_map: Object.fromEntries(entries.filter((e): e is [string, string] => typeof e[1] === 'string')) };
}

/** Request fields over template defaults; config maps merge key by key. Absent and null fields keep the default. */
function overlay(defaults: Body, fields: Record<string, unknown>): Body {
  const out: Body = { ...defaults, config: { ...(defaults.config ?? {}) } };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    if (key === 'config' && isPlainObject(value)) {
      for (const [option, setting] of Object.entries(value)) {
        if (setting === undefined || setting === null) continue;
        const current = out.config![option];
        out.config![option] = MERGED_CONFIG_MAPS.has(option) && isPlainObject(setting) && isPlainObject(current) ? { ...current, ...setting } : setting;
      }
    } else {
      out[key] = value;
    }
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A session name from the template's name that satisfies the name rule (4–64 of [\w.-], \w at both ends). */
function generatedName(stem: string): string {
  const base = stem
    .replace(/[^\w.-]+/g, '-')
    .slice(0, 40)
    .replace(/^[^A-Za-z0-9_]+|[^A-Za-z0-9_]+$/g, '');
  return `${base || 'session'}-${randomBytes(4).toString('hex')}`;
}

/** Validates the merged body as POST /session does and creates the session (its caller refreshed the lookups). */
async function start(app: App, caller: Principal, body: Body, roles?: string[]): Promise<CreateSessionResult> {
  const parsed = createSessionSchema.safeParse(body);
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error);
    const first = Object.entries(errors)[0];
    throw badRequest(first ? `${first[0]}: ${first[1]}` : 'Invalid parameters.', errors);
  }
  return createSession(app, caller, { ...toCreateInput(parsed.data), roles }, { lookupsRefreshed: true });
}
