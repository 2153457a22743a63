/**
 * POST /services (CONTRACT §13): a service is validated completely before it is stored. Its name is unique among
 * services that are not destroyed; `config.model` is a folder (name or id, as the owner reaches it) with usage
 * mode `model`; the request is checked exactly as an inference session create would be (image, project, domain,
 * scaling group, resources, mounts); the model definition, if the folder has one, must parse; something must
 * start the server (the definition's start_command, or startup_command). The scaler then creates the routes.
 */
import { randomUUID } from 'node:crypto';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { actingAs } from '../auth/delegation';
import { json } from '../db';
import type { ExtraMounts } from '../db/schema';
import { Problem, badRequest } from '../http/problem';
import { checkCreateSession } from '../sessions/create';
import { findFolder } from '../storage/access';
import { inferenceSessionInput, MAX_SERVICE_NAME, sessionNameFor, type EndpointSpec } from './session-input';
import { readModelDefinition } from './model-definition';
import { checkSessionCount } from './limits';
import { serveInfo } from './shapes';
import { requestScaling } from './scaler';

const NAME_RULE = /^\w(?:[\w.-]*\w)?$/;

export interface CreateServiceInput {
  name: string;
  desired_session_count: number;
  image: string;
  arch?: string;
  group: string;
  domain?: string;
  cluster_size: number;
  cluster_mode: 'single-node' | 'multi-node';
  tag?: string | null;
  startup_command?: string | null;
  bootstrap_script?: string | null;
  callback_url?: string | null;
  owner_access_key?: string | null;
  open_to_public: boolean;
  runtime_variant: 'custom' | 'vllm' | 'nim' | 'cmd';
  config: {
    model: string;
    model_version?: string | number | null;
    model_mount_destination: string;
    model_definition_path?: string | null;
    environ?: Record<string, string>;
    scaling_group?: string;
    resources?: Record<string, unknown>;
    resource_opts?: Record<string, unknown>;
    extra_mounts?: ExtraMounts;
  };
}

export async function createService(app: App, caller: Principal, input: CreateServiceInput): Promise<Record<string, unknown>> {
  const owner = await actingAs(app, caller, input.owner_access_key);
  if (input.name.length > MAX_SERVICE_NAME || !NAME_RULE.test(input.name) || /[^\x00-\x7f]/.test(input.name)) {
    throw badRequest(`The service name must be 1–${MAX_SERVICE_NAME} ASCII letters, digits, _, . or -, starting and ending with a letter, digit or _.`, { name: 'invalid service name' });
  }
  if (await nameTaken(app, input.name)) throw badRequest(`A model service named "${input.name}" already exists.`, { name: 'already in use' });
  await checkSessionCount(app, owner.userId, input.desired_session_count, 'desired_session_count');

  let model;
  try {
    model = (await findFolder(app, owner, input.config.model)).folder;
  } catch (err) {
    if (err instanceof Problem && (err.slug === 'object-not-found' || err.slug === 'too-many-vfolders')) throw badRequest(`No such model folder: ${input.config.model}`, { 'config.model': 'unknown folder' });
    throw err;
  }
  if (model.usage_mode !== 'model') throw badRequest(`The folder "${model.name}" is not a model folder (its usage mode is ${model.usage_mode}).`, { 'config.model': 'not a model folder' });
  const extraMounts: ExtraMounts = {};
  for (const [reference, options] of Object.entries(input.config.extra_mounts ?? {})) {
    const folder = await findFolder(app, owner, reference).catch(() => null);
    if (!folder) throw badRequest(`No such folder to mount: ${reference}`, { 'config.extra_mounts': 'unknown folder' });
    if (folder.folder.id === model.id) throw badRequest('The model folder is mounted already.', { 'config.extra_mounts': 'duplicate of config.model' });
    extraMounts[folder.folder.id] = options;
  }

  const definition = await readModelDefinition(app, model, input.config.model_definition_path ?? null);
  if (!definition?.startCommand && !input.startup_command?.trim()) {
    throw badRequest('Nothing starts the model server: give startup_command, or a model definition with service.start_command.', { startup_command: 'required without a model definition start_command' });
  }

  const id = randomUUID();
  const spec: EndpointSpec = {
    name: input.name,
    image: input.image,
    architecture: input.arch ?? '',
    group_id: input.group,
    domain_name: input.domain ?? owner.domainName,
    cluster_size: input.cluster_size,
    cluster_mode: input.cluster_mode,
    model_id: model.id,
    model_mount_destination: input.config.model_mount_destination,
    extra_mounts: extraMounts,
    tag: input.tag ?? null,
    bootstrap_script: input.bootstrap_script ?? null,
    callback_url: input.callback_url ?? null,
    environ: input.config.environ ?? {},
    resources: input.config.resources ?? {},
    resource_opts: input.config.resource_opts ?? {},
    scaling_group_name: input.config.scaling_group ?? 'default',
  };
  const sessionInput = inferenceSessionInput(spec, sessionNameFor(input.name, id), owner.accessKey);
  if (!input.arch) delete sessionInput.arch;
  const checked = await checkCreateSession(app, caller, sessionInput);

  try {
    await app.db
      .insertInto('endpoints')
      .values({
        id,
        name: input.name,
        created_user: caller.userId,
        session_owner: owner.userId,
        access_key: owner.accessKey,
        domain_name: owner.domainName,
        group_id: checked.groupId,
        scaling_group_name: checked.scalingGroup,
        image: checked.image.name,
        architecture: input.arch ?? checked.image.architecture,
        cluster_size: input.cluster_size,
        cluster_mode: input.cluster_mode,
        model_id: model.id,
        model_mount_destination: input.config.model_mount_destination,
        model_definition_path: input.config.model_definition_path ?? null,
        extra_mounts: json(extraMounts),
        runtime_variant: input.runtime_variant,
        desired_session_count: input.desired_session_count,
        tag: input.tag ?? null,
        startup_command: input.startup_command ?? null,
        bootstrap_script: input.bootstrap_script ?? null,
        callback_url: input.callback_url ?? null,
        environ: json(input.config.environ ?? {}),
        resources: json(input.config.resources ?? {}),
        resource_opts: json(input.config.resource_opts ?? {}),
        open_to_public: input.open_to_public,
      })
      .execute();
  } catch (err) {
    if (await nameTaken(app, input.name)) throw badRequest(`A model service named "${input.name}" already exists.`, { name: 'already in use' });
    throw err;
  }
  requestScaling(app, 'service-created');
  const endpoint = await app.db.selectFrom('endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return serveInfo(app, endpoint);
}

async function nameTaken(app: App, name: string): Promise<boolean> {
  return Boolean(await app.db.selectFrom('endpoints').select('id').where('name', '=', name).where('lifecycle_stage', '<>', 'destroyed').executeTakeFirst());
}
